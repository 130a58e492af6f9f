#include "sandbox/lifecycle/SandboxIdleExpiry.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"

#include <QPointer>

#include <algorithm>

namespace chat2sbx {

SandboxIdleExpiry::SandboxIdleExpiry(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler,
                                     SandboxDestroyer &destroyer, QObject *parent)
    : QObject(parent), m_ops(ops), m_reconciler(reconciler), m_destroyer(destroyer)
{
    m_timer.setInterval(static_cast<int>(std::clamp<qint64>(m_ops.idleMs() / 4, 500, 60000)));
    connect(&m_timer, &QTimer::timeout, this, &SandboxIdleExpiry::checkIdle);
}

void SandboxIdleExpiry::checkIdle()
{
    if (!m_reconciler.isSbxAvailable())
        return;
    for (const SandboxRecord &r : m_ops.records().idleExpired(m_ops.clock().nowMs())) {
        if (m_destroyer.isDestroying(r.id) || m_preparing.contains(r.id) || !m_ops.heldFor(r.id).isEmpty())
            continue;
        QPointer<SandboxIdleExpiry> self(this);
        const auto expire = [self, id = r.id](const QString &note) {
            if (!self)
                return;
            self->m_preparing.remove(id);
            QString reason = QStringLiteral("destroyed after %1 s without a tool call (idle expiry)")
                                 .arg(self->m_ops.config().sandboxIdleSeconds);
            if (!note.isEmpty())
                reason += QStringLiteral("; ") + note;
            self->m_destroyer.destroy(id, [self, id](const SandboxOutcome &o) {
                if (self && !o.ok && o.exportFailed)
                    self->postponeIdleExpiry(id, QStringLiteral("idle expiry left the sandbox stopped instead of removing it: its "
                                                                "work could not be saved to the host repository (%1); fetch it or "
                                                                "destroy it with force")
                                                     .arg(o.exportError));
            }, reason);
        };
        if (!m_beforeExpiry) {
            expire(QString());
            continue;
        }
        m_preparing.insert(r.id);
        m_beforeExpiry(r.id, expire);
    }
}

void SandboxIdleExpiry::postponeIdleExpiry(const QString &sandboxId, const QString &why)
{
    // Left in place instead of removed: the control channel goes away, so a real VM falls asleep by
    // itself (files kept); the next tool call wakes it, and expiry is tried again a full period later.
    const qint64 now = m_ops.clock().nowMs();
    QString error;
    if (!m_ops.records().renew(sandboxId, now, now + m_ops.idleMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot postpone the idle expiry of" << sandboxId << ":" << error;
    if (!m_ops.records().setReason(sandboxId, why, now, error))
        qCWarning(lcSandbox).noquote() << "cannot record why" << sandboxId << "was kept:" << error;
    m_ops.detach(sandboxId);
    qCWarning(lcSandbox).noquote() << "idle expiry of" << sandboxId << "postponed:" << why;
    emit m_ops.sandboxesChanged();
    emit workNotKept(sandboxId, why);
}

} // namespace chat2sbx
