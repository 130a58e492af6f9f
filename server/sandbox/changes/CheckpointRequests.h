#pragma once

#include "sandbox/lifecycle/SandboxOutcome.h"
#include "state/Checkpoint.h"

#include <QStringList>

#include <functional>

namespace chat2sbx {

// What the checkpoint jobs are asked and what they answer: named fields, never positional bools.

// A direct-mode sandbox's folder is the user's own and never copied: its checkpoint is refused
// unless only the VM's side (installed packages, HOME) is asked for.
enum class CheckpointScope { Everything, VmOnly };
// After the save the sandbox is released (the next tool call wakes it), or stays held stopped for
// the job that goes on with it (a restore).
enum class AfterSave { Release, KeepHeld };

using CheckpointStarted = std::function<void(const Checkpoint &)>;

struct CheckpointRequest {
    QString sandboxId;
    QString label;
    RunningCommands running = RunningCommands::Refuse;
    CheckpointScope scope = CheckpointScope::Everything;
    QStringList dockerImages;   // the sandbox's own Docker images to keep too (DockerImageKeeper)
    AfterSave after = AfterSave::Release;
    // A cloud sandbox's memory and processes too (`--capture-mode all`); refused for a local one.
    bool keepMemory = false;
};

struct CheckpointOutcome {
    bool ok = false;
    QString error;                // one sentence (nothing is left of the checkpoint)
    Checkpoint checkpoint;        // set once recorded, also when it failed later
    QStringList kept;             // what the checkpoint holds
    QStringList notes;            // what the checkpoint does not hold
    QList<Checkpoint> evicted;    // older checkpoints the budget removed to make room
    QString overBudget;           // pinned checkpoints keep the total over the budget: how and what to do
};
using CheckpointDone = std::function<void(const CheckpointOutcome &)>;

struct RestoreRequest {
    QString sandboxId;
    QString checkpointId;
    RunningCommands running = RunningCommands::Refuse;
};

struct RestoreOutcome {
    bool ok = false;
    QString error;             // one sentence, including what the sandbox is now
    Checkpoint restored;       // the checkpoint the sandbox went back to
    Checkpoint undo;           // the sandbox as it was just before (set once saved)
    qint64 tookMs = 0;
    QStringList broughtBack;   // what the restore brought back
    QStringList notes;         // what a restore does not bring back
};
using RestoreStarted = std::function<void(const Checkpoint &undo)>;
using RestoreDone = std::function<void(const RestoreOutcome &)>;

// Exactly one of sandboxId (a checkpoint of it is taken now) and checkpointId.
struct ForkRequest {
    QString sandboxId;
    QString checkpointId;
    QString name;
    RunningCommands running = RunningCommands::Refuse;   // only when a checkpoint is taken
    QStringList dockerImages;                            // with sandboxId: images the fork gets too
    bool keepMemory = false;                             // with sandboxId of a cloud sandbox: its memory too
    QString placement;                                   // "local" | "cloud" asked for; empty: where the checkpoint is
};

struct ForkOutcome {
    bool ok = false;
    QString error;
    SandboxView view;              // the new sandbox
    Checkpoint checkpoint;         // what it was made from
    bool checkpointMade = false;   // the checkpoint was taken for this fork
    qint64 tookMs = 0;
    QStringList notes;
};
using ForkDone = std::function<void(const ForkOutcome &)>;

using RemoveDone = std::function<void(bool ok, const QString &error)>;

constexpr int kMaxCheckpointLabelChars = 200;
constexpr int kMaxForkNameChars = 100;

} // namespace chat2sbx
