#pragma once

#include "sandbox/changes/CheckpointRequests.h"
#include "state/BashSessionRepository.h"
#include "state/CheckpointRepository.h"

#include <QHash>
#include <QObject>
#include <QSet>

#include <optional>

namespace chat2sbx {

struct Config;
class Clock;
class CloneCheckpointWork;
class Database;
class DockerImageKeeper;
class SandboxService;
class SbxDriver;
class WorkspaceCopy;

// What the checkpoint jobs (CheckpointTaker, CheckpointRestorer, CheckpointForker, CheckpointRemoval)
// share: the services they act through, the repository, the marks of checkpoints a restore or fork
// reads (the budget never evicts those), the fill of a VM made from a checkpoint's template, and the
// one change signal. No job calls back into CheckpointService.
class CheckpointJobs : public QObject {
    Q_OBJECT
public:
    // `cloneWork` (may be null: clone sandboxes are then refused) outlives this.
    CheckpointJobs(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                   CloneCheckpointWork *cloneWork, QObject *parent = nullptr);

    const Config &config() const { return m_config; }
    SandboxService &sandboxes() const { return m_sandboxes; }
    SbxDriver &sbx() const { return m_sbx; }
    Clock &clock() const { return m_clock; }
    CheckpointRepository &repo() { return m_repo; }
    const CheckpointRepository &repo() const { return m_repo; }
    BashSessionRepository &sessions() { return m_sessions; }
    WorkspaceCopy &copy() const { return *m_copy; }
    DockerImageKeeper &docker() const { return *m_docker; }
    CloneCheckpointWork *cloneWork() const { return m_cloneWork; }

    // <dataRoot>/checkpoints/<id>: the workspace copy and a clone's git state.
    QString copyDir(const QString &checkpointId) const;

    // A restore or fork reads it: the budget does not evict it meanwhile.
    void markInUse(const QString &checkpointId);
    void unmarkInUse(const QString &checkpointId);
    QSet<QString> inUse() const;

    // Why a restore or fork cannot start from `c` (`checkpointId` asked for): unknown, still saving or
    // failed; empty when it is ready.
    static QString whyNotUsable(const std::optional<Checkpoint> &c, const QString &checkpointId);

    // A VM just made from `c`'s template (a restore's or a fork's) gets what a template does not hold:
    // a clone's git state put back, then the Docker images the checkpoint kept loaded.
    static bool needsFill(const Checkpoint &c) { return !c.cloneState.isEmpty() || !c.dockerImages.isEmpty(); }
    void fillNewVm(const RunningSandbox &vm, const Checkpoint &c, std::function<void(bool ok, const QString &error)> done);

    bool setPinned(const QString &checkpointId, bool pinned, QString &error);
    // The undo of a clone restore, pinned: the sandbox's earlier undo pins are released (one per sandbox).
    bool pinAsUndo(const QString &checkpointId, const QString &sandboxId, QString &error);

    void announce(const QString &sandboxId) { emit checkpointsChanged(sandboxId); }

signals:
    void checkpointsChanged(const QString &sandboxId);

private:
    const Config &m_config;
    SandboxService &m_sandboxes;
    SbxDriver &m_sbx;
    Clock &m_clock;
    CloneCheckpointWork *m_cloneWork;
    CheckpointRepository m_repo;
    BashSessionRepository m_sessions;
    WorkspaceCopy *m_copy;
    DockerImageKeeper *m_docker;
    QHash<QString, int> m_inUse;   // checkpoint id -> restores and forks reading it
};

} // namespace chat2sbx
