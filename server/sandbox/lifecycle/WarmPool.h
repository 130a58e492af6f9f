#pragma once

#include "config/Config.h"
#include "state/WarmSandboxRepository.h"

#include <QElapsedTimer>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

namespace chat2sbx {

class Clock;
class Database;
class RuntimeAttacher;
class SbxDriver;
struct SandboxRecord;

// Managed sandboxes created ahead of need (config warmSandboxes), from the current template, so that
// sandbox_create without a workspace answers at once. A warm sandbox is no one's until it is handed
// over: it is not listed, does not count against maxActiveSandboxes, and its sandbox id and managed
// workspace are only reserved (warm_sandboxes row, persisted before `sbx create`). Hand-over writes
// the workspace and sandbox rows and deletes the warm row in one transaction, within the limit; a
// replacement is then made in the background. Warm sandboxes made by this process keep their channel
// attached (awake); after a restart they are adopted unattached (the VM may be stopped: it wakes when
// the hand-over attaches it). Stale ones (template rebuilt by `chat2sbx setup`, another template
// version) and extras (warmSandboxes lowered) are removed. Everything runs on the event loop thread.
class WarmPool : public QObject {
    Q_OBJECT
public:
    WarmPool(const Config &config, Database &db, SbxDriver &sbx, Clock &clock, QObject *parent = nullptr);
    ~WarmPool() override;

    void setAttacher(RuntimeAttacher *attacher) { m_attacher = attacher; }
    void setRetryIntervalMs(int ms) { m_retryIntervalMs = ms; }
    void setTarget(int count);   // warmSandboxes; starts from the config's value
    int target() const { return m_target; }

    // Start-up: settles the rows against `sbx ls` (adopt ready ones that exist; remove half-made,
    // stale, other-template and surplus ones), then fills the pool. Runtime names of rows kept or being
    // removed are added to `owned`, so reconciliation does not report them as unknown.
    void reconcileWith(const QSet<QString> &presentRuntimes, QSet<QString> &owned);

    // Takes a ready warm sandbox for a new managed workspace with the default memory. Writes the
    // workspace row and the sandbox row (running when attached, else creating: the caller attaches)
    // within `limit`, and deletes the warm row, in one transaction. Returns false, with nothing
    // changed, when none is ready, the pool is off, or the limit is reached (limitReached set).
    bool handOver(int limit, qint64 idleMs, SandboxRecord &out, bool &attached, bool &limitReached);

    // Ready (may be asleep) and being created.
    int readyCount() const;
    int creatingCount() const;
    // Removes stale rows and tops the pool up (the timer calls it; tests may too).
    void maintain();
    // Detaches the channels of warm sandboxes; they stay (and sleep) for the next start.
    void shutdown();

signals:
    void warmChanged();

private:
    void fillOne();
    void removeWarm(const WarmRecord &r);
    void created(const QString &runtimeName, bool ok, const QString &error);
    void dropRow(const WarmRecord &r);
    void scheduleMaintain(int delayMs);

    const Config &m_config;
    Database &m_db;
    SbxDriver &m_sbx;
    Clock &m_clock;
    WarmSandboxRepository m_repo;
    RuntimeAttacher *m_attacher = nullptr;
    int m_target = 0;
    bool m_reconciled = false;
    QSet<QString> m_inFlight;     // runtime names: `sbx create` or attach running in this process
    QSet<QString> m_attached;     // runtime names whose channel is up
    QSet<QString> m_removing;
    QTimer m_timer;
    int m_retryIntervalMs = 30000;
    int m_failuresInRow = 0;
    QElapsedTimer m_sinceFailure;
};

} // namespace chat2sbx
