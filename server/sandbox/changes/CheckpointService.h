#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/Checkpoint.h"
#include "state/BashSessionRepository.h"
#include "state/CheckpointRepository.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <optional>

namespace chat2sbx {

struct Config;
class CheckpointForker;
class CheckpointRemoval;
class CheckpointRestorer;
class CloneCheckpointWork;
class DockerImageKeeper;
class Clock;
class Database;
class SandboxService;
class SbxDriver;
class WorkspaceCopy;

// Checkpoints of sandboxes: taking, listing and restoring them. A checkpoint
// is recorded `saving` first; then the sandbox is held stopped (SandboxService::holdStopped), its
// VM's disk saved as the template chat2sbx-checkpoint:<id> (`sbx template save`), and a managed
// workspace copied on the host (WorkspaceCopy) into <dataRoot>/checkpoints/<id>/workspace; then
// `ready`, and the sandbox is released (the next tool call wakes it). Any failure leaves it `failed`
// with why and removes what was made. A direct-mode folder is the user's own and not copied (the
// outcome says so); a clone sandbox's git state is saved first, while it runs (CloneCheckpointWork,
// into <dataRoot>/checkpoints/<id>/git).
// What a template never holds: memory, processes, mounted folders and the VM's Docker images.
// CheckpointRemoval deletes them (one, the budget's oldest, a destroyed sandbox's).
class CheckpointService : public QObject {
    Q_OBJECT
public:
    // `cloneWork` (may be null: clone sandboxes are then refused) carries a clone sandbox's git state.
    CheckpointService(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                      CloneCheckpointWork *cloneWork, QObject *parent = nullptr);
    ~CheckpointService() override;

    struct Outcome {
        bool ok = false;
        QString error;           // one sentence (nothing is left of the checkpoint)
        Checkpoint checkpoint;   // set once recorded, also when it failed later
        QStringList kept;        // what the checkpoint holds
        QStringList notes;       // what the checkpoint does not hold
        QList<Checkpoint> evicted;   // older checkpoints the budget removed to make room
        QString overBudget;      // pinned checkpoints keep the total over the budget: how and what to do
    };
    using Done = std::function<void(const Outcome &)>;

    // `started` runs once the checkpoint is recorded (its id known); `done` once it is ready or failed.
    // Commands still running in the sandbox end when its VM stops: refused unless `endRunningCommands`.
    // A direct-mode sandbox's folder is the user's own and never copied: its checkpoint is refused
    // unless `vmOnly` (only the VM's side: installed packages, HOME).
    // `dockerImages`: the sandbox's own Docker images to keep too (DockerImageKeeper), at most 10.
    void create(const QString &sandboxId, const QString &label, bool endRunningCommands,
                std::function<void(const Checkpoint &)> started, Done done, bool vmOnly = false,
                const QStringList &dockerImages = {});
    // create() that leaves the sandbox held stopped when it succeeds (a restore goes on with it; a
    // direct sandbox's is always of the VM's side only).
    void createHeld(const QString &sandboxId, const QString &label, bool endRunningCommands, Done done);
    std::optional<Checkpoint> find(const QString &checkpointId) const;
    // Why a restore or fork cannot start from `c` (`checkpointId` asked for): unknown, still saving or
    // failed; empty when it is ready.
    static QString whyNotUsable(const std::optional<Checkpoint> &c, const QString &checkpointId);
    QList<Checkpoint> list(const QString &sandboxId) const;
    // Every sandbox's checkpoints that are saving or ready, oldest first.
    QHash<QString, QList<Checkpoint>> listLive() const;

    struct RestoreOutcome {
        bool ok = false;
        QString error;            // one sentence, including what the sandbox is now
        Checkpoint restored;      // the checkpoint the sandbox went back to
        Checkpoint undo;          // the sandbox as it was just before (set once saved)
        qint64 tookMs = 0;
        QStringList broughtBack;  // what the restore brought back
        QStringList notes;        // what a restore does not bring back
    };
    using RestoreDone = std::function<void(const RestoreOutcome &)>;
    // The same sandbox id goes back to one of its checkpoints (CheckpointRestorer). `started` runs
    // once the restore is under way (after the state before it was saved).
    void restore(const QString &sandboxId, const QString &checkpointId, bool endRunningCommands,
                 std::function<void(const Checkpoint &undo)> started, RestoreDone done);
    std::optional<CheckpointRepository::PendingRestore> pendingRestore(const QString &sandboxId) const;
    // Every restore under way, by sandbox id (the tray: one query for every sandbox).
    QHash<QString, CheckpointRepository::PendingRestore> pendingRestores() const;
    // sandbox_fork (CheckpointForker): a new sandbox from a checkpoint, or from a checkpoint of
    // `sandboxId` taken now.
    CheckpointForker &forker() const { return *m_forker; }
    std::optional<CheckpointRepository::Fork> forkOf(const QString &sandboxId) const;
    QHash<QString, CheckpointRepository::Fork> allForks() const;

    // Deleting one (sandbox_checkpoint_delete, `chat2sbx sandbox uncheckpoint`): refused while it is
    // saving, restored to, forked from or the template of a fork that still lives.
    void remove(const QString &checkpointId, std::function<void(bool ok, const QString &error)> done);
    bool setPinned(const QString &checkpointId, bool pinned, QString &error);
    // The undo of a clone restore, pinned: the sandbox's earlier undo pins are released (one per sandbox).
    bool pinAsUndo(const QString &checkpointId, const QString &sandboxId, QString &error);
    // A restore or fork reads it: the budget does not evict it meanwhile.
    void markInUse(const QString &checkpointId) { ++m_inUse[checkpointId]; }
    void unmarkInUse(const QString &checkpointId)
    {
        if (--m_inUse[checkpointId] <= 0)
            m_inUse.remove(checkpointId);
    }
    CheckpointRemoval &removal() const { return *m_removal; }
    CloneCheckpointWork *cloneWork() const { return m_cloneWork; }
    // A VM just made from `c`'s template (a restore's or a fork's) gets what a template does not hold:
    // a clone's git state put back, then the Docker images the checkpoint kept loaded.
    static bool needsFill(const Checkpoint &c) { return !c.cloneState.isEmpty() || !c.dockerImages.isEmpty(); }
    void fillNewVm(const RunningSandbox &vm, const Checkpoint &c, std::function<void(bool ok, const QString &error)> done);

    // checkpointBeforeExpiry: a scratch sandbox idle expiry is about to remove is checkpointed first
    // (pinned, so it outlives the sandbox), then `proceed` removes it, its reason naming the checkpoint.
    void checkpointBeforeExpiry(const QString &sandboxId, std::function<void(const QString &note)> proceed);

    // Start-up: checkpoints a crash left `saving` become `failed`, their template and copy removed;
    // a restore a crash interrupted is finished (or the sandbox put back as it was before it).
    void reconcile();

    static constexpr int kMaxLabelChars = 200;

signals:
    void checkpointsChanged(const QString &sandboxId);

private:
    void take(const QString &sandboxId, const QString &label, bool endRunningCommands, bool keepHeld, bool vmOnly,
              const QStringList &dockerImages, std::function<void(const Checkpoint &)> started, Done done);
    void fail(const Checkpoint &c, const QString &why, bool held, const Done &done);
    // The Docker images' archive leaves the source sandbox's HOME (a failure only logs); `then` after.
    void dropDockerArchive(const Checkpoint &c, bool held, std::function<void()> then);
    // Holds the sandbox stopped, saves its VM's disk as the template, copies a managed workspace
    // (`source`), then records the checkpoint ready.
    // The template the sandbox's VM was made from (empty: unknown), and what a save refused for its
    // absence says.
    QString baseTemplateOf(const QString &sandboxId) const;
    QString baseGoneText(const QString &sandboxId, const QString &base) const;
    void saveVm(const Checkpoint &c, const std::pair<QStringList, QStringList> &notes, const QString &source, bool keepHeld,
                qint64 cloneBytes, Done done);
    QString copyDir(const QString &checkpointId) const;

    const Config &m_config;
    SandboxService &m_sandboxes;
    SbxDriver &m_sbx;
    Clock &m_clock;
    CloneCheckpointWork *m_cloneWork;   // outlives this (Services), or null
    CheckpointRepository m_repo;
    BashSessionRepository m_sessions;
    WorkspaceCopy *m_copy;
    DockerImageKeeper *m_docker;
    CheckpointRestorer *m_restorer;
    CheckpointForker *m_forker;
    CheckpointRemoval *m_removal;
    QHash<QString, int> m_inUse;   // checkpoint id -> restores and forks reading it
    QTimer m_sweepSoon;   // destroyed sandboxes' checkpoints go shortly after a change, once per burst
};

} // namespace chat2sbx
