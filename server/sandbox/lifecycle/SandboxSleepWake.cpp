#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QSet>

#include <memory>

namespace chat2sbx {

// ---- sleep and wake -------------------------------------------------------------------------------

bool SandboxService::wake(const SandboxRecord &r, std::shared_ptr<StartCheck> &startCheck, QString &error)
{
    if (m_stopsInFlight.contains(r.id)) {
        error = QStringLiteral("sandbox %1 is being put to sleep right now (sbx stop is running); call again in a few "
                               "seconds and it wakes up").arg(r.id);
        return false;
    }
    const std::optional<Workspace> w = m_workspaces.find(r.workspaceId);
    // Armed before the check: a swap between it and the VM's start (when sbx shares the folder) is seen.
    const std::shared_ptr<FolderSwapWatch> swapWatch = w ? m_workspaces.watchForMount(*w) : nullptr;
    if (w && !checkHostFolder(r.id, *w, error)) {
        error = QStringLiteral("sandbox %1 is asleep and was not woken, because waking it would share whatever is at that "
                               "path now with the VM: %2. Put the folder back as it was approved and call again, or destroy "
                               "the sandbox")
                    .arg(r.id, error);
        return false;
    }
    const qint64 now = m_clock.nowMs();
    QString dbError;
    if (!m_repo.markWoken(r.id, now, now + idleMs(), dbError) && !dbError.isEmpty()) {
        error = dbError;
        return false;
    }
    // Nothing is started here: the channel's `sbx exec` starts the VM (sbx-contract.md, exec row),
    // and the channel asks this check before it sends anything of the call.
    if (w && !w->isManaged()) {
        QPointer<SandboxService> self(this);
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
    emit sandboxesChanged();
    checkPortsAfterWake(r.id, r.runtimeName);
    return true;
}

void SandboxService::refuseWake(const QString &sandboxId, const QString &why)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    const qint64 now = m_clock.nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_repo.markStopped(sandboxId, now, stopReasons::wakeRefused(why), now, error) && !error.isEmpty())
        qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "was put back to sleep:" << error;
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), now);
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCWarning(lcSandbox).noquote() << why;
    emit sandboxesChanged();
    stopRuntime(sandboxId, r->runtimeName);
}

bool SandboxService::checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const
{
    if (workspace.isManaged())
        return true;
    QString why;
    if (m_workspaces.checkBeforeUse(workspace, why))
        return true;
    error = QStringLiteral("the host folder %1 of sandbox %2 is no longer the approved one (%3)")
                .arg(workspace.hostPath, sandboxId, why);
    qCWarning(lcSandbox).noquote() << error;
    return false;
}

// sbx publishes a sandbox's ports again when it restarts (v0.34); a mapping it no longer lists is
// dropped from the record (and so from sandbox_get) and logged, never shown as if it still worked.
void SandboxService::checkPortsAfterWake(const QString &id, const QString &runtimeName)
{
    if (m_repo.ports(id).isEmpty())
        return;
    QPointer<SandboxService> self(this);
    m_sbx.ports(runtimeName, [self, id](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self || !r.ok)
            return;
        QSet<int> listed;
        for (const SbxPortMapping &m : items)
            listed.insert(m.sandboxPort);
        bool changed = false;
        for (const SandboxPortRecord &p : self->m_repo.ports(id)) {
            if (listed.contains(p.sandboxPort))
                continue;
            QString error;
            if (self->m_repo.removePort(id, p.sandboxPort, error)) {
                changed = true;
                qCWarning(lcSandbox).noquote() << "port" << p.sandboxPort << "of sandbox" << id
                                               << "is no longer published after it woke; removed (expose it again)";
            }
        }
        if (changed)
            emit self->sandboxesChanged();
    });
}

QStringList SandboxService::sleepCandidates() const
{
    QStringList out;
    for (const SandboxRecord &r : m_repo.idleSince(m_clock.nowMs() - sleepMs()))
        if (!m_creating.contains(r.id) && !m_destroying.contains(r.id))
            out.append(r.id);
    return out;
}

std::optional<RunningSandbox> SandboxService::runningSandbox(const QString &sandboxId) const
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return std::nullopt;
    return runningOf(*r, m_workspaces.find(r->workspaceId));
}

void SandboxService::markSessionsLost(const QString &id, const QString &reason, qint64 startedBefore)
{
    QString error;
    const int n = m_sessions.markSandboxSessionsLost(id, reason, startedBefore, m_clock.nowMs(), error);
    if (n < 0)
        qCWarning(lcSandbox).noquote() << "cannot record the lost bash sessions of" << id << ":" << error;
    else if (n > 0)
        qCInfo(lcSandbox).noquote() << n << "bash sessions of" << id << "are lost:" << reason;
}

bool SandboxService::putToSleep(const QString &sandboxId)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running || m_creating.contains(sandboxId) || m_destroying.contains(sandboxId))
        return false;
    const qint64 now = m_clock.nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_repo.markStopped(sandboxId, now, stopReasons::sandboxSlept(m_config.sandboxSleepSeconds), now, error)) {
        if (!error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot put" << sandboxId << "to sleep:" << error;
        return false;
    }
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), now);
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCInfo(lcSandbox).noquote() << "sandbox" << sandboxId << "goes to sleep after" << m_config.sandboxSleepSeconds
                                << "s without a tool call (files kept; the next tool call wakes it)";
    emit sandboxesChanged();
    stopRuntime(sandboxId, r->runtimeName);
    return true;
}

void SandboxService::stopRuntime(const QString &id, const QString &runtimeName, std::function<void()> finished)
{
    m_stopsInFlight.insert(id);
    QPointer<SandboxService> self(this);
    m_sbx.stop(runtimeName, [self, id, finished](const SbxResult &r) {
        if (!self)
            return;
        self->m_stopsInFlight.remove(id);
        if (!r.ok)
            qCWarning(lcSandbox).noquote() << "sbx stop of sandbox" << id << "failed (its VM stops by itself once idle):"
                                           << r.error;
        if (finished)
            finished();
    });
}

void SandboxService::noteStopped(const QString &sandboxId, qint64 exitedAt, bool channelBack)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), exitedAt);
    const qint64 now = m_clock.nowMs();
    QString error;
    if (channelBack) {
        if (!m_repo.recordSleepAndWake(sandboxId, exitedAt, now, stopReasons::sandboxStoppedOutside(), error))
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
    } else {
        if (!m_repo.markStopped(sandboxId, exitedAt, stopReasons::sandboxStoppedOutside(), now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
        if (m_attacher)
            m_attacher->detach(sandboxId);
    }
    emit sandboxesChanged();
}

} // namespace chat2sbx
