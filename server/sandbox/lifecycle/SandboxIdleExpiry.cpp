#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/channel/RuntimeAttacher.h"

#include <QPointer>

namespace chat2sbx {

// ---- idle expiry ----------------------------------------------------------------------------------

void SandboxService::checkIdle()
{
    if (!m_available)
        return;
    for (const SandboxRecord &r : m_repo.idleExpired(m_clock.nowMs())) {
        if (m_destroying.contains(r.id))
            continue;
        const QString reason = QStringLiteral("destroyed after %1 s without a tool call (idle expiry)")
                                   .arg(m_config.sandboxIdleSeconds);
        QPointer<SandboxService> self(this);
        destroy(r.id, [self, id = r.id](const Outcome &o) {
            if (self && !o.ok && o.exportFailed)
                self->postponeIdleExpiry(id, QStringLiteral("idle expiry left the sandbox stopped instead of removing it: its work "
                                                            "could not be saved to the host repository (%1); fetch it or destroy "
                                                            "it with force")
                                                 .arg(o.exportError));
        }, reason);
    }
}

void SandboxService::postponeIdleExpiry(const QString &sandboxId, const QString &why)
{
    // Left in place instead of removed: the control channel goes away, so a real VM falls asleep by
    // itself (files kept); the next tool call wakes it, and expiry is tried again a full period later.
    const qint64 now = m_clock.nowMs();
    QString error;
    if (!m_repo.renew(sandboxId, now, now + idleMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot postpone the idle expiry of" << sandboxId << ":" << error;
    if (!m_repo.setReason(sandboxId, why, now, error))
        qCWarning(lcSandbox).noquote() << "cannot record why" << sandboxId << "was kept:" << error;
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCWarning(lcSandbox).noquote() << "idle expiry of" << sandboxId << "postponed:" << why;
    emit sandboxesChanged();
    emit workNotKept(sandboxId, why);
}

} // namespace chat2sbx
