#pragma once

#include "sandbox/changes/CheckpointRequests.h"
#include "state/CheckpointRepository.h"

#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

namespace chat2sbx {

struct Config;
class CheckpointForker;
class CheckpointJobs;
class CheckpointRemoval;
class CheckpointRestorer;
class CheckpointTaker;
class CloneCheckpointWork;
class Clock;
class Database;
class SandboxService;
class SbxDriver;

// Checkpoints of sandboxes, a facade over one class per job sharing CheckpointJobs:
// CheckpointTaker (sandbox_checkpoint), CheckpointRestorer (sandbox_restore), CheckpointForker
// (sandbox_fork) and CheckpointRemoval (delete, the budget, a destroyed sandbox's). Built by
// runtime/Services only.
// What a checkpoint never holds: memory, processes, mounted folders and the VM's Docker images
// (but for those named).
class CheckpointService : public QObject {
    Q_OBJECT
public:
    // `cloneWork` (may be null: clone sandboxes are then refused) carries a clone sandbox's git state.
    CheckpointService(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                      CloneCheckpointWork *cloneWork, QObject *parent = nullptr);
    ~CheckpointService() override;

    // `started` (may be empty) runs once the checkpoint is recorded (its id known); `done` once it is
    // ready or failed.
    void create(const CheckpointRequest &request, CheckpointStarted started, CheckpointDone done);
    // The same sandbox id goes back to one of its checkpoints. `started` runs once the restore is under
    // way (after the state before it was saved).
    void restore(const RestoreRequest &request, RestoreStarted started, RestoreDone done);
    // A new sandbox from a checkpoint, or from a checkpoint of a sandbox taken now.
    void fork(const ForkRequest &request, CheckpointStarted started, ForkDone done);
    // Deleting one (sandbox_checkpoint_delete, `chat2sbx sandbox uncheckpoint`): refused while it is
    // saving, restored to, forked from or the template of a fork that still lives.
    void remove(const QString &checkpointId, RemoveDone done);
    bool setPinned(const QString &checkpointId, bool pinned, QString &error);

    std::optional<Checkpoint> find(const QString &checkpointId) const;
    QList<Checkpoint> list(const QString &sandboxId) const;
    // Every sandbox's checkpoints that are saving or ready, oldest first.
    QHash<QString, QList<Checkpoint>> listLive() const;
    std::optional<CheckpointRepository::PendingRestore> pendingRestore(const QString &sandboxId) const;
    // Every restore under way, by sandbox id (the tray: one query for every sandbox).
    QHash<QString, CheckpointRepository::PendingRestore> pendingRestores() const;
    std::optional<CheckpointRepository::Fork> forkOf(const QString &sandboxId) const;
    QHash<QString, CheckpointRepository::Fork> allForks() const;

    // checkpointBeforeExpiry: a scratch sandbox idle expiry is about to remove is checkpointed first
    // (pinned, so it outlives the sandbox), then `proceed` removes it, its reason naming the checkpoint.
    void checkpointBeforeExpiry(const QString &sandboxId, std::function<void(const QString &note)> proceed);

    // Start-up: checkpoints a crash left `saving` become `failed`, their template and copy removed;
    // a restore a crash interrupted is finished (or the sandbox put back as it was before it).
    void reconcile();

signals:
    void checkpointsChanged(const QString &sandboxId);

private:
    CheckpointJobs *m_jobs;
    CheckpointRemoval *m_removal;
    CheckpointTaker *m_taker;
    CheckpointRestorer *m_restorer;
    CheckpointForker *m_forker;
    QTimer m_sweepSoon;   // destroyed sandboxes' checkpoints go shortly after a change, once per burst
};

} // namespace chat2sbx
