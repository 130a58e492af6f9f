#pragma once

#include "sandbox/changes/CheckpointRequests.h"
#include "sandbox/lifecycle/SandboxOutcome.h"
#include "state/CheckpointRepository.h"

#include <QObject>

namespace chat2sbx {

struct Config;
class CheckpointJobs;
class CheckpointTaker;
class Clock;
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
    CheckpointForker(CheckpointJobs &jobs, CheckpointTaker &taker, QObject *parent = nullptr);


    void fork(const ForkRequest &request, CheckpointStarted started, ForkDone done);


private:
    void forkFrom(const Checkpoint &checkpoint, bool made, const QString &name, qint64 startedAt, ForkDone done);
    // Empty when a fork of `what` (in the cloud or not) may be made where `asked` says (empty: anywhere).
    static QString placementRefusal(bool inCloud, const QString &asked, const QString &what);
    // A cloud checkpoint: a new cloud sandbox from its template.
    void forkInCloud(const Checkpoint &c, ForkOutcome o, const QString &name, qint64 startedAt, ForkDone done);
    void forkClone(const Checkpoint &checkpoint, ForkOutcome o, const QString &name, qint64 startedAt, ForkDone done);
    // A managed workspace made for a fork that was not made: its record and folder go (unless a
    // failed sandbox record names it: then it goes with that record).
    void discardWorkspace(const QString &workspaceId);
    void create(const SandboxCreateRequest &made, const Checkpoint &checkpoint, ForkOutcome o, const QString &name, qint64 startedAt,
                ForkDone done);
    QString limitError() const;

    CheckpointJobs &m_jobs;
    CheckpointTaker &m_taker;
    const Config &m_config;
    CheckpointRepository &m_repo;
    SandboxService &m_sandboxes;
    WorkspaceCopy &m_copy;
    Clock &m_clock;
};

} // namespace chat2sbx
