#include "sandbox/lifecycle/SandboxWaker.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QSet>
#include <QTimer>

#include <memory>

namespace chat2sbx {

SandboxWaker::SandboxWaker(SandboxRuntimeOps &ops, QObject *parent) : QObject(parent), m_ops(ops)
{
}

bool SandboxWaker::wake(const SandboxRecord &r, std::shared_ptr<StartCheck> &startCheck, QString &error)
{
    if (const QString why = m_ops.heldFor(r.id); !why.isEmpty()) {
        error = QStringLiteral("sandbox %1 is %2 right now; call again once that is done").arg(r.id, why);
        return false;
    }
    if (m_ops.isStopping(r.id)) {
        error = QStringLiteral("sandbox %1 is being put to sleep right now (sbx stop is running); call again in a few "
                               "seconds and it wakes up").arg(r.id);
        return false;
    }
    if (r.isCloud() && !resumeCloud(r, error))
        return false;
    // A cloud sandbox has no host folder: nothing of this computer is shared with it.
    const std::optional<Workspace> w = r.isCloud() ? std::nullopt : m_ops.workspaces().find(r.workspaceId);
    // Armed before the check: a swap between it and the VM's start (when sbx shares the folder) is seen.
    const std::shared_ptr<FolderSwapWatch> swapWatch = w ? m_ops.workspaces().watchForMount(*w) : nullptr;
    if (w && !checkHostFolder(r.id, *w, error)) {
        error = QStringLiteral("sandbox %1 is asleep and was not woken, because waking it would share whatever is at that "
                               "path now with the VM: %2. Put the folder back as it was approved and call again, or destroy "
                               "the sandbox")
                    .arg(r.id, error);
        return false;
    }
    const qint64 now = m_ops.clock().nowMs();
    QString dbError;
    if (!m_ops.records().markWoken(r.id, now, now + m_ops.idleMs(), dbError) && !dbError.isEmpty()) {
        error = dbError;
        return false;
    }
    // Nothing is started here: the channel's `sbx exec` starts the VM (sbx-contract.md, exec row),
    // and the channel asks this check before it sends anything of the call.
    if (w && !w->isManaged()) {
        QPointer<SandboxWaker> self(this);
        startCheck = std::make_shared<StartCheck>([self, id = r.id, workspace = *w, swapWatch](QString &why) {
            if (!self)
                return false;
            QString what;
            if (swapWatch && swapWatch->changed(what))
                why = QStringLiteral("the host folder %1 changed while sandbox %2 was waking (%3)").arg(workspace.hostPath, id, what);
            else if (self->checkHostFolder(id, workspace, why))
                return true;
            why = QStringLiteral("sandbox %1 was put back to sleep before anything ran in it, because its VM may have been "
                                 "given another folder: %2. Put the folder back as it was approved and call again, or destroy "
                                 "the sandbox")
                      .arg(id, why);
            // Not from inside the channel's answer: the channel is closed and the VM stopped next turn.
            QTimer::singleShot(0, self, [self, id, why] {
                if (self)
                    self->refuseWake(id, why);
            });
            return false;
        });
    }
    qCInfo(lcSandbox).noquote() << "waking sandbox" << r.id << "for a tool call";
    emit m_ops.sandboxesChanged();
    if (!r.isCloud())
        checkPortsAfterWake(r.id, r.runtimeName);
    return true;
}

bool SandboxWaker::resumeCloud(const SandboxRecord &r, QString &error)
{
    if (m_resumed.remove(r.id))
        return true;
    error = QStringLiteral("sandbox %1 was stopped in Docker's cloud (%2); chat2sbx is starting it again there, which takes a "
                           "little while: call again in a few seconds")
                .arg(r.id, r.sleepReason.isEmpty() ? QStringLiteral("its time-to-live ended") : r.sleepReason);
    if (m_resuming.contains(r.id))
        return false;
    m_resuming.insert(r.id);
    QPointer<SandboxWaker> self(this);
    m_ops.sbx().cloudResume(r.runtimeName, [self, id = r.id](const SbxResult &result, const QString &) {
        if (!self)
            return;
        self->m_resuming.remove(id);
        if (result.ok)
            self->m_resumed.insert(id);
        else
            qCWarning(lcSandbox).noquote() << "starting cloud sandbox" << id << "again failed:" << result.error;
        emit self->m_ops.sandboxesChanged();
    });
    return false;
}

void SandboxWaker::refuseWake(const QString &sandboxId, const QString &why)
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    const qint64 now = m_ops.clock().nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_ops.records().markStopped(sandboxId, now, stopReasons::wakeRefused(why), now, error) && !error.isEmpty())
        qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "was put back to sleep:" << error;
    m_ops.markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), now);
    m_ops.detach(sandboxId);
    qCWarning(lcSandbox).noquote() << why;
    emit m_ops.sandboxesChanged();
    m_ops.stopRuntime(sandboxId, r->runtimeName);
}

bool SandboxWaker::checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const
{
    if (workspace.isManaged())
        return true;
    QString why;
    if (m_ops.workspaces().checkBeforeUse(workspace, why))
        return true;
    error = QStringLiteral("the host folder %1 of sandbox %2 is no longer the approved one (%3)")
                .arg(workspace.hostPath, sandboxId, why);
    qCWarning(lcSandbox).noquote() << error;
    return false;
}

// sbx publishes a sandbox's ports again when it restarts (v0.34); a mapping it no longer lists is
// dropped from the record (and so from sandbox_get) and logged, never shown as if it still worked.
void SandboxWaker::checkPortsAfterWake(const QString &id, const QString &runtimeName)
{
    if (m_ops.records().ports(id).isEmpty())
        return;
    QPointer<SandboxWaker> self(this);
    m_ops.sbx().ports(runtimeName, [self, id](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self || !r.ok)
            return;
        QSet<int> listed;
        for (const SbxPortMapping &m : items)
            listed.insert(m.sandboxPort);
        bool changed = false;
        for (const SandboxPortRecord &p : self->m_ops.records().ports(id)) {
            if (listed.contains(p.sandboxPort))
                continue;
            QString error;
            if (self->m_ops.records().removePort(id, p.sandboxPort, error)) {
                changed = true;
                qCWarning(lcSandbox).noquote() << "port" << p.sandboxPort << "of sandbox" << id
                                               << "is no longer published after it woke; removed (expose it again)";
            }
        }
        if (changed)
            emit self->m_ops.sandboxesChanged();
    });
}

} // namespace chat2sbx
