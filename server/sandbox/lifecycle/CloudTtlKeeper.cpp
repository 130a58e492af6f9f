#include "sandbox/lifecycle/CloudTtlKeeper.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QDateTime>
#include <QPointer>

namespace chat2sbx {

CloudTtlKeeper::CloudTtlKeeper(SandboxRuntimeOps &ops, QObject *parent) : QObject(parent), m_ops(ops)
{
    if (!m_ops.config().cloudSandboxes)
        return;
    // Often enough that a warning comes at most a tenth of its lead late.
    m_check.setInterval(int(qBound<qint64>(qint64(1000), m_ops.config().cloudWarnBeforeSeconds * 100, qint64(kMaxCheckEveryMs))));
    connect(&m_check, &QTimer::timeout, this, &CloudTtlKeeper::checkExpiries);
    m_check.start();
    // A create, a wake or an extension changes what ends when: looked at once the changes of this turn
    // of the event loop are done (one read for a burst of them).
    m_checkSoon.setSingleShot(true);
    m_checkSoon.setInterval(0);
    connect(&m_checkSoon, &QTimer::timeout, this, &CloudTtlKeeper::checkExpiries);
    connect(&m_ops, &SandboxRuntimeOps::sandboxesChanged, &m_checkSoon, qOverload<>(&QTimer::start));
}

void CloudTtlKeeper::inUse(const SandboxRecord &r)
{
    if (!r.isCloud() || r.state != SandboxState::Running || r.expiresAt <= 0 || m_extending.contains(r.id))
        return;
    const qint64 now = m_ops.clock().nowMs();
    const qint64 step = m_ops.config().cloudDefaultTtlSeconds;
    if (r.expiresAt - now > step * 1000 / 2)
        return;
    if (r.expiresCeilingAt > 0 && r.expiresAt >= r.expiresCeilingAt)
        return;   // at the 24 h ceiling already: nothing can move it
    extendBy(r, step, QStringLiteral("is in use"), [id = r.id](const QString &error) {
        if (!error.isEmpty())
            qCWarning(lcSandbox).noquote() << "extending the time-to-live of cloud sandbox" << id << "failed:" << error;
    });
}

void CloudTtlKeeper::extend(const SandboxRecord &r, std::function<void(const QString &error)> done)
{
    QString refused;
    if (!r.isCloud())
        refused = QStringLiteral("sandbox %1 runs on this computer: it has no time-to-live").arg(r.id);
    else if (r.state != SandboxState::Running || r.expiresAt <= 0)
        refused = QStringLiteral("sandbox %1 is not running in the cloud now (%2): only a running cloud sandbox can be extended")
                      .arg(r.id, sandboxStateName(r.state));
    else if (r.expiresCeilingAt > 0 && r.expiresAt >= r.expiresCeilingAt)
        refused = QStringLiteral("sandbox %1 ends at %2, 24 h after it was created: the cloud keeps no sandbox longer. Copy what "
                                 "you need out of it before then")
                      .arg(r.id, QDateTime::fromMSecsSinceEpoch(r.expiresAt).toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    else if (m_extending.contains(r.id))
        refused = QStringLiteral("sandbox %1 is being extended already").arg(r.id);
    if (!refused.isEmpty()) {
        QTimer::singleShot(0, this, [done, refused] { done(refused); });
        return;
    }
    extendBy(r, m_ops.config().cloudDefaultTtlSeconds, QStringLiteral("was extended by the user"), std::move(done));
}

void CloudTtlKeeper::extendBy(const SandboxRecord &r, qint64 seconds, const QString &why, std::function<void(const QString &error)> done)
{
    m_extending.insert(r.id);
    QPointer<CloudTtlKeeper> self(this);
    m_ops.sbx().cloudTtl(r.runtimeName, seconds, [self, id = r.id, why, done](const SbxResult &result, const SbxCloudTtl &ttl) {
        if (!self)
            return;
        self->m_extending.remove(id);
        if (!result.ok)
            return done(result.error);
        QString error;
        if (ttl.expiresAtMs > 0 && !self->m_ops.records().setExpiry(id, ttl.expiresAtMs, ttl.maxExpiresAtMs, error))
            return done(error);
        qCInfo(lcSandbox).noquote() << "cloud sandbox" << id << why + QStringLiteral(": its time-to-live now ends")
                                    << QDateTime::fromMSecsSinceEpoch(ttl.expiresAtMs).toString(Qt::ISODate);
        emit self->m_ops.sandboxesChanged();
        done({});
    });
}

void CloudTtlKeeper::checkExpiries()
{
    const qint64 now = m_ops.clock().nowMs();
    QHash<QString, qint64> warned;
    for (const SandboxRecord &r : m_ops.records().listCloud()) {
        if (r.state != SandboxState::Running || r.expiresAt <= now || r.expiresAt - now > m_ops.config().cloudWarnBeforeSeconds * 1000)
            continue;
        warned.insert(r.id, r.expiresAt);
        if (m_warned.value(r.id) == r.expiresAt || m_extending.contains(r.id))
            continue;
        qCInfo(lcSandbox).noquote() << "cloud sandbox" << r.id << "expires at"
                                    << QDateTime::fromMSecsSinceEpoch(r.expiresAt).toString(Qt::ISODate);
        emit expiryNear(r.id, r.expiresAt, r.expiresCeilingAt > 0 && r.expiresAt >= r.expiresCeilingAt);
    }
    m_warned = warned;   // an end extended away (or a sandbox gone) may be warned about again
}

} // namespace chat2sbx
