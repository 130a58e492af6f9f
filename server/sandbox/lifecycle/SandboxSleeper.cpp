#include "sandbox/lifecycle/SandboxSleeper.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "workspace/WorkspaceService.h"

namespace chat2sbx {

SandboxSleeper::SandboxSleeper(SandboxRuntimeOps &ops, const SandboxCreator &creator, const SandboxDestroyer &destroyer,
                               QObject *parent)
    : QObject(parent), m_ops(ops), m_creator(creator), m_destroyer(destroyer)
{
}

qint64 SandboxSleeper::sleepMs() const
{
    return m_ops.config().sandboxSleepSeconds * 1000;
}

bool SandboxSleeper::isInFlight(const QString &sandboxId) const
{
    return m_creator.isCreating(sandboxId) || m_destroyer.isDestroying(sandboxId);
}

QStringList SandboxSleeper::sleepCandidates() const
{
    QStringList out;
    // A cloud sandbox is not put to sleep: its time-to-live ends it (a stopped one costs a resume).
    for (const SandboxRecord &r : m_ops.records().idleSince(m_ops.clock().nowMs() - sleepMs()))
        if (!isInFlight(r.id) && !r.isCloud())
            out.append(r.id);
    return out;
}

std::optional<RunningSandbox> SandboxSleeper::runningSandbox(const QString &sandboxId) const
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return std::nullopt;
    return m_ops.runningOf(*r, m_ops.workspaces().find(r->workspaceId));
}

bool SandboxSleeper::putToSleep(const QString &sandboxId)
{
    const int sleepSeconds = m_ops.config().sandboxSleepSeconds;
    return stop(sandboxId, stopReasons::sandboxSlept(sleepSeconds), stopReasons::sessionLostStopped(),
                QStringLiteral("goes to sleep after %1 s without a tool call (files kept; the next tool call wakes it)").arg(sleepSeconds));
}

bool SandboxSleeper::pause(const QString &sandboxId, std::function<void()> stopped)
{
    return stop(sandboxId, stopReasons::sandboxPaused(), stopReasons::sessionLostPaused(),
                QStringLiteral("is paused by the user (files kept; the next tool call wakes it)"), std::move(stopped));
}

bool SandboxSleeper::stop(const QString &sandboxId, const QString &reason, const QString &sessionsLost, const QString &logText,
                          std::function<void()> stopped)
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r || r->state != SandboxState::Running || isInFlight(sandboxId) || !m_ops.heldFor(sandboxId).isEmpty())
        return false;
    const qint64 now = m_ops.clock().nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_ops.records().markStopped(sandboxId, now, reason, now, error)) {
        if (!error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot stop" << sandboxId << ":" << error;
        return false;
    }
    m_ops.markSessionsLost(sandboxId, sessionsLost, now);
    m_ops.detach(sandboxId);
    qCInfo(lcSandbox).noquote() << "sandbox" << sandboxId << logText;
    emit m_ops.sandboxesChanged();
    m_ops.stopRuntime(sandboxId, r->runtimeName, std::move(stopped));
    return true;
}

void SandboxSleeper::noteStopped(const QString &sandboxId, qint64 exitedAt, bool channelBack)
{
    const auto r = m_ops.records().find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    m_ops.markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), exitedAt);
    const qint64 now = m_ops.clock().nowMs();
    QString error;
    if (channelBack) {
        if (!m_ops.records().recordSleepAndWake(sandboxId, exitedAt, now, stopReasons::sandboxStoppedOutside(), error))
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
    } else {
        if (!m_ops.records().markStopped(sandboxId, exitedAt, stopReasons::sandboxStoppedOutside(), now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
        m_ops.detach(sandboxId);
    }
    emit m_ops.sandboxesChanged();
}

} // namespace chat2sbx
