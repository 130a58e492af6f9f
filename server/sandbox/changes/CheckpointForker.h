#pragma once

#include "sandbox/changes/CheckpointService.h"
#include "sandbox/lifecycle/SandboxOutcome.h"
#include "state/CheckpointRepository.h"

#include <QObject>

namespace chat2sbx {

struct Config;
class Clock;
class Database;
class SandboxService;
class WorkspaceCopy;

// sandbox_fork: a new sandbox from a checkpoint (a fresh checkpoint is taken first when given a
// sandbox). Its workspace is a new managed one holding a copy of the checkpoint's workspace
// (WorkspaceCopy::replace); its VM is made by SandboxService::create with the checkpoint's template
// (never a warm sandbox, counted against maxActiveSandboxes like any create); the sandbox_forks row
// names its parent sandbox and checkpoint. A direct-mode sandbox is refused: its folder is the user's
// own and two sandboxes would share it. A clone sandbox's fork is a second clone of the same host
// repository (SandboxCreateRequest::alongside) into which the checkpoint's git state is put back before
// it counts as made; its work comes home on chat2sbx/<fork id> like any clone sandbox's.
class CheckpointForker : public QObject {
    Q_OBJECT
public:
    CheckpointForker(const Config &config, CheckpointService &checkpoints, Database &db, SandboxService &sandboxes,
                     WorkspaceCopy &copy, Clock &clock, QObject *parent = nullptr);

    struct Outcome {
        bool ok = false;
        QString error;
        SandboxView view;            // the new sandbox
        Checkpoint checkpoint;       // what it was made from
        bool checkpointMade = false; // the checkpoint was taken for this fork
        qint64 tookMs = 0;
        QStringList notes;
    };
    using Done = std::function<void(const Outcome &)>;

    // Exactly one of sandboxId and checkpointId. `endRunningCommands`: only when a checkpoint is taken.
    // `dockerImages` (with sandboxId): the sandbox's own Docker images the checkpoint keeps for the fork.
    void fork(const QString &sandboxId, const QString &checkpointId, const QString &name, bool endRunningCommands,
              std::function<void(const Checkpoint &)> started, Done done, const QStringList &dockerImages = {});

    static constexpr int kMaxNameChars = 100;

private:
    void forkFrom(const Checkpoint &checkpoint, bool made, const QString &name, qint64 startedAt, Done done);
    void forkClone(const Checkpoint &checkpoint, Outcome o, const QString &name, qint64 startedAt, Done done);
    // A managed workspace made for a fork that was not made: its record and folder go (unless a
    // failed sandbox record names it: then it goes with that record).
    void discardWorkspace(const QString &workspaceId);
    void create(const SandboxCreateRequest &made, const Checkpoint &checkpoint, Outcome o, const QString &name, qint64 startedAt,
                Done done);
    QString limitError() const;

    const Config &m_config;
    CheckpointService &m_checkpoints;
    CheckpointRepository m_repo;
    SandboxService &m_sandboxes;
    WorkspaceCopy &m_copy;
    Clock &m_clock;
};

} // namespace chat2sbx
