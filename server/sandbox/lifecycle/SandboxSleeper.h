#pragma once

#include "sandbox/channel/SandboxResolver.h"

#include <QObject>
#include <QString>
#include <QStringList>

#include <optional>

namespace chat2sbx {

class SandboxCreator;
class SandboxDestroyer;
class SandboxRuntimeOps;

// What SandboxSleep (which decides when) does to a sandbox: puts a running one to sleep (stopped,
// persisted first, channel closed, `sbx stop`; files kept, bash sessions lost) and records a VM
// that stopped by itself under a running chat2sbx.
class SandboxSleeper : public QObject {
    Q_OBJECT
public:
    SandboxSleeper(SandboxRuntimeOps &ops, const SandboxCreator &creator, const SandboxDestroyer &destroyer,
                   QObject *parent = nullptr);

    qint64 sleepMs() const;
    // Running sandboxes no tool call reached for sleepMs(), not being created or destroyed.
    QStringList sleepCandidates() const;
    // What a channel needs to reach a running sandbox, without renewing its idle deadline.
    std::optional<RunningSandbox> runningSandbox(const QString &sandboxId) const;
    // running -> stopped (persisted first), channel closed, `sbx stop`. False if it was not running.
    bool putToSleep(const QString &sandboxId);
    // The same at the user's word (SandboxService::pause checked first that it is safe now);
    // `stopped` once `sbx stop` returned.
    bool pause(const QString &sandboxId, std::function<void()> stopped);
    // Its VM was found stopped after its channel exited at `exitedAt`: the sessions started before
    // are lost; the sandbox is stopped, or, when a tool call has already started the channel (and so
    // the VM) again, stays running with both times recorded.
    void noteStopped(const QString &sandboxId, qint64 exitedAt, bool channelBack);

private:
    bool isInFlight(const QString &sandboxId) const;
    bool stop(const QString &sandboxId, const QString &reason, const QString &sessionsLost, const QString &logText,
              std::function<void()> stopped = nullptr);

    // Outlive this: SandboxService declares them first.
    SandboxRuntimeOps &m_ops;
    const SandboxCreator &m_creator;
    const SandboxDestroyer &m_destroyer;
};

} // namespace chat2sbx
