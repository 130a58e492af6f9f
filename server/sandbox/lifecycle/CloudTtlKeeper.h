#pragma once

#include "state/SandboxRepository.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

namespace chat2sbx {

class SandboxRuntimeOps;

// A cloud sandbox's time-to-live. In use it does not expire under the agent: when a tool call
// reaches one with less than half of cloudDefaultTtl left, it is extended by cloudDefaultTtl
// (`sbx --cloud ttl +D`), one extension at a time per sandbox, never past its ceiling of 24 h from
// creation (the cloud refuses or clamps; what it says is recorded). Left alone it does expire: the
// user hears of it cloudWarnBefore before (expiryNear, once per end) and may extend it; a clone's
// work goes home then (ChangesService::keepBeforeCloudExpiry).
class CloudTtlKeeper : public QObject {
    Q_OBJECT
public:
    explicit CloudTtlKeeper(SandboxRuntimeOps &ops, QObject *parent = nullptr);

    // A tool call reached `r` (a running cloud sandbox).
    void inUse(const SandboxRecord &r);
    // The user extends `r` by cloudDefaultTtl; `done(error)` (empty: extended) runs once, later.
    void extend(const SandboxRecord &r, std::function<void(const QString &error)> done);

    static constexpr int kMaxCheckEveryMs = 30 * 1000;

signals:
    // A running cloud sandbox's time-to-live ends at `expiresAtMs`, within cloudWarnBefore;
    // `atCeiling`: it cannot be extended any more (24 h from its creation).
    void expiryNear(const QString &sandboxId, qint64 expiresAtMs, bool atCeiling);

private:
    // `why` for the log: "is in use", "was extended by the user".
    void extendBy(const SandboxRecord &r, qint64 seconds, const QString &why, std::function<void(const QString &error)> done);
    void checkExpiries();

    SandboxRuntimeOps &m_ops;
    QSet<QString> m_extending;
    QTimer m_check;
    QTimer m_checkSoon;
    QHash<QString, qint64> m_warned;   // sandbox id -> the end it was warned about
};

} // namespace chat2sbx
