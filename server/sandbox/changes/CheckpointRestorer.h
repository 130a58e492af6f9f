#pragma once

#include "sandbox/changes/CheckpointRequests.h"
#include "state/CheckpointRepository.h"

#include <QObject>

namespace chat2sbx {

class CheckpointJobs;
class CheckpointTaker;
class Clock;
class SandboxService;
class WorkspaceCopy;

// sandbox_restore: the same sandbox id goes back to one of its checkpoints.
// 1. The sandbox as it is now is checkpointed first ("before restoring ckp_…"), which leaves it held
//    stopped: a restore can itself be undone, and nothing of the present is lost.
// 2. The intent is persisted (sandbox_restores row: sandbox, checkpoint, undo checkpoint).
// 3. A managed workspace's contents are replaced by the checkpoint's copy (WorkspaceCopy::replace),
//    then the VM is replaced by one made from the checkpoint's template under the same runtime name
//    (SandboxService::replaceHeldRuntime), so the record's runtime name never changes. A clone
//    sandbox's VM comes with a fresh clone of the host repository, and its saved git state is put
//    back into it (CloneCheckpointWork) before the sandbox is released; its undo checkpoint is
//    pinned, so the budget never takes the only copy of work not yet exported.
// 4. The row is removed and the sandbox released (the next tool call starts it).
// A cloud sandbox (a cloud checkpoint): its undo is saved while it runs, then it is held stopped, and
// step 3 makes its cloud sandbox anew from the template (SandboxService::replaceHeldCloudRuntime).
// A step that fails puts the sandbox back to the undo checkpoint the same way. A restart finds the
// row and does steps 3–4 again (each is safe to repeat); the reconciler leaves a held sandbox alone.
class CheckpointRestorer : public QObject {
    Q_OBJECT
public:
    CheckpointRestorer(CheckpointJobs &jobs, CheckpointTaker &taker, QObject *parent = nullptr);

    void restore(const RestoreRequest &request, RestoreStarted started, RestoreDone done);
    // Start-up: restores a crash interrupted are finished (or put back).
    void finishInterrupted();

private:
    using StepDone = std::function<void(bool ok, const QString &error)>;
    // Steps 1 and 2 once the checks passed.
    void begin(const QString &sandboxId, const Checkpoint &target, std::function<void(const Checkpoint &)> started,
               RestoreDone done);
    // Step 2 once the undo checkpoint is made and the sandbox held, then steps 3 and 4.
    void persistAndApply(const QString &sandboxId, const Checkpoint &target, const Checkpoint &undo, const RestoreStarted &started,
                         qint64 startedAt, const RestoreDone &done);
    // Steps 3 and 4 for a sandbox already held stopped with its row written.
    void apply(const CheckpointRepository::PendingRestore &pending, qint64 startedAtMs, RestoreDone done);
    void replaceWith(const QString &sandboxId, const Checkpoint &checkpoint, StepDone done);
    // The new VM gets what its template does not hold (CheckpointJobs::fillNewVm).
    void fillNewVm(const QString &sandboxId, const Checkpoint &checkpoint, StepDone done);
    void end(const QString &sandboxId);
    QString refusal(const QString &sandboxId, const std::optional<Checkpoint> &checkpoint, const QString &checkpointId) const;

    CheckpointJobs &m_jobs;
    CheckpointTaker &m_taker;
    CheckpointRepository &m_repo;
    SandboxService &m_sandboxes;
    WorkspaceCopy &m_copy;
    Clock &m_clock;
};

} // namespace chat2sbx
