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
    m_extending.insert(r.id);
    QPointer<CloudTtlKeeper> self(this);
    m_ops.sbx().cloudTtl(r.runtimeName, step, [self, id = r.id](const SbxResult &result, const SbxCloudTtl &ttl) {
        if (!self)
            return;
        self->m_extending.remove(id);
        if (!result.ok) {
            qCWarning(lcSandbox).noquote() << "extending the time-to-live of cloud sandbox" << id << "failed:" << result.error;
            return;
        }
        QString error;
        if (ttl.expiresAtMs > 0 && !self->m_ops.records().setExpiry(id, ttl.expiresAtMs, ttl.maxExpiresAtMs, error))
            qCWarning(lcSandbox).noquote() << error;
        qCInfo(lcSandbox).noquote() << "cloud sandbox" << id << "is in use: its time-to-live now ends"
                                    << QDateTime::fromMSecsSinceEpoch(ttl.expiresAtMs).toString(Qt::ISODate);
        emit self->m_ops.sandboxesChanged();
    });
}

} // namespace chat2sbx
