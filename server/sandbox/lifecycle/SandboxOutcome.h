#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/SandboxRepository.h"

#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx {

// What a create is asked, and what a create or destroy answers (SandboxService::CreateRequest,
// ::Outcome, ::Done): shared by the facade and the two jobs that do them.
struct SandboxCreateRequest {
    QString workspaceId;   // empty: a new managed workspace
    QString memory;        // normalised ("512m"), empty: sbx default
    QString templateRef;   // empty: the pinned template; a checkpoint's (a fork) never takes a warm sandbox
    // A clone workspace's second sandbox (a fork: each clone is private), not a reuse of the one it has.
    bool alongside = false;
    // "cloud": in Docker's cloud (`sbx --cloud`), with a compute size (empty: small) and a
    // time-to-live in seconds (0: cloudDefaultTtl); empty or "local": on this computer.
    QString placement;
    QString size;
    qint64 ttlSeconds = 0;
    // Runs once the new VM answers, before the sandbox counts as running (a fork puts its clone's work
    // back): a failure fails the create, and a crash meanwhile leaves a create that start-up clears.
    std::function<void(const RunningSandbox &, std::function<void(bool ok, const QString &error)>)> prepare;
};

struct SandboxOutcome {
    bool ok = false;
    QString error;         // readable; may contain internal names: pass through publicText()
    SandboxView view;
    bool reused = false;
    // destroy: where the work went before the runtime was removed (DestroyGuard).
    QString keptBranch;    // empty: nothing needed keeping
    QString keptSummary;   // one sentence, or empty
    bool exportFailed = false;   // refused because the work could not be kept (force overrides)
    QString exportError;         // why it could not be kept
};

using SandboxDone = std::function<void(const SandboxOutcome &)>;

// Commands still running in a sandbox end when its VM stops (a pause, a checkpoint): refused unless
// the caller says they may end.
enum class RunningCommands { Refuse, MayEnd };

// Pause (the user's word for sleep): the VM stopped, files kept, the next tool call wakes it.
struct PauseRequest {
    QString sandboxId;
    RunningCommands running = RunningCommands::Refuse;
};

struct PauseOutcome {
    bool ok = false;
    QString error;                 // readable, says what to do
    QStringList runningCommands;   // refused for them: what runs (to name, then confirm)
    bool alreadyPaused = false;    // ok: it was asleep already
    int commandsEnded = 0;         // ok: commands the pause ended
};

} // namespace chat2sbx
