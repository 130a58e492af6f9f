#pragma once

#include "config/Config.h"
#include "state/CloudWarmRepository.h"

#include <QObject>
#include <QSet>
#include <QTimer>

namespace chat2sbx {

class Clock;
class Database;
class SbxDriver;
struct SandboxRecord;

// Cloud sandboxes made ahead of need (cloudWarmSandboxes, 0 by default: each one is billed while it
// waits), so that sandbox_create {placement: cloud} with the default size and time-to-live answers
// without the cloud's create (seconds). Warm sandboxes stay local otherwise (WarmPool). A warm cloud
// sandbox is no one's until handed over: not listed, not counted; its ids are only reserved (a row
// persisted before `sbx --cloud create`). It is made as any cloud sandbox, to stop at its time-to-live's
// end where the account can (its files kept once it is someone's); the pool removes one never used ten
// minutes before that end and makes another. At start the rows are settled against `sbx --cloud ls`:
// ready ones running with time left are kept, the rest removed. Everything runs on the event loop thread.
class CloudWarmPool : public QObject {
    Q_OBJECT
public:
    CloudWarmPool(const Config &config, Database &db, SbxDriver &sbx, Clock &clock, QObject *parent = nullptr);

    // Settles the rows against the cloud, then keeps the pool filled.
    void start();
    int target() const { return m_target; }
    int readyCount() const;

    // Takes a ready one for a new cloud sandbox with the default size and time-to-live: writes the
    // managed workspace row and the sandbox row (creating: the caller attaches it) within `limit`, and
    // deletes the warm row, in one transaction. False, with nothing changed, when none is ready or the
    // limit is reached (limitReached set).
    bool handOver(int limit, qint64 idleMs, SandboxRecord &out, bool &limitReached);

    static constexpr qint64 kDropBeforeEndMs = 10 * 60 * 1000;
    static constexpr int kMaintainEveryMs = 30 * 1000;

signals:
    void warmChanged();

private:
    void maintain();
    void fillOne();
    void createRuntime(const CloudWarmRecord &r, bool canStop);
    void removeWarm(const CloudWarmRecord &r);

    // Outlive this: Services owns them, declared before this. Config: Controller's member.
    const Config &m_config;
    Database &m_db;
    SbxDriver &m_sbx;
    Clock &m_clock;
    CloudWarmRepository m_repo;
    int m_target = 0;
    bool m_started = false;
    int m_failuresInRow = 0;
    QSet<QString> m_inFlight;   // runtime names: `sbx --cloud create` running in this process
    QSet<QString> m_removing;
    QTimer m_timer;
};

} // namespace chat2sbx
