#include "sandbox/changes/CheckpointForker.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/changes/CheckpointJobs.h"
#include "sandbox/changes/CheckpointTaker.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/changes/WorkspaceCopy.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "workspace/WorkspaceService.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcFork, "chat2sbx.checkpoint")
} // namespace

CheckpointForker::CheckpointForker(CheckpointJobs &jobs, CheckpointTaker &taker, QObject *parent)
    : QObject(parent), m_jobs(jobs), m_taker(taker), m_config(jobs.config()), m_repo(jobs.repo()), m_sandboxes(jobs.sandboxes()),
      m_copy(jobs.copy()), m_clock(jobs.clock())
{
}

QString CheckpointForker::limitError() const
{
    return QStringLiteral("the limit of %1 active sandboxes (maxActiveSandboxes, CHAT2SBX_MAX_ACTIVE_SANDBOXES) is reached; a fork "
                          "is a sandbox of its own: destroy one with sandbox_destroy first")
        .arg(m_config.maxActiveSandboxes);
}

void CheckpointForker::fork(const ForkRequest &request, CheckpointStarted started, ForkDone done)
{
    const QString &sandboxId = request.sandboxId;
    const QString &checkpointId = request.checkpointId;
    ForkOutcome refused;
    if (sandboxId.isEmpty() == checkpointId.isEmpty()) {
        refused.error = QStringLiteral("give either sandbox_id (a checkpoint of it is taken now) or checkpoint_id, not both");
        return done(refused);
    }
    if (m_config.maxActiveSandboxes > 0 && m_sandboxes.countActive() >= m_config.maxActiveSandboxes) {
        refused.error = limitError();
        return done(refused);
    }
    const qint64 startedAt = m_clock.nowMs();
    const QString forkName = request.name.simplified().left(kMaxForkNameChars);
    if (!checkpointId.isEmpty()) {
        const std::optional<Checkpoint> c = m_repo.find(checkpointId);
        refused.error = CheckpointJobs::whyNotUsable(c, checkpointId);
        if (refused.error.isEmpty())
            refused.error = placementRefusal(c->inCloud, request.placement, QStringLiteral("checkpoint %1").arg(checkpointId));
        if (!refused.error.isEmpty())
            return done(refused);
        if (started)
            started(*c);
        return forkFrom(*c, false, forkName, startedAt, std::move(done));
    }
    const std::optional<SandboxView> source = m_sandboxes.get(sandboxId);
    if (source) {
        refused.error = placementRefusal(source->record.isCloud(), request.placement, QStringLiteral("sandbox %1").arg(sandboxId));
        if (!refused.error.isEmpty())
            return done(refused);
    }
    if (source && source->workspace && source->workspace->mode == WorkspaceMode::Direct) {
        refused.error = QStringLiteral("sandbox %1 works on the user's own folder %2 (direct mode): a fork would share it with "
                                       "another sandbox, so it is refused")
                            .arg(sandboxId, source->workspace->hostPath);
        return done(refused);
    }
    QPointer<CheckpointForker> self(this);
    CheckpointRequest checkpoint;
    checkpoint.sandboxId = sandboxId;
    checkpoint.label = forkName.isEmpty() ? QStringLiteral("for a fork") : QStringLiteral("for the fork %1").arg(forkName);
    checkpoint.running = request.running;
    checkpoint.dockerImages = request.dockerImages;
    checkpoint.keepMemory = request.keepMemory;
    m_taker.take(
        checkpoint, started,
        [self, forkName, startedAt, done](const CheckpointOutcome &made) {
            if (!self)
                return;
            if (!made.ok) {
                ForkOutcome o;
                o.error = QStringLiteral("no fork was made: the checkpoint to fork from failed (%1)").arg(made.error);
                return done(o);
            }
            self->forkFrom(made.checkpoint, true, forkName, startedAt, done);
        });
}

QString CheckpointForker::placementRefusal(bool inCloud, const QString &asked, const QString &what)
{
    if (asked.isEmpty() || asked == (inCloud ? QLatin1String("cloud") : QLatin1String("local")))
        return {};
    if (inCloud)
        return QStringLiteral("%1 is in Docker's cloud, so a fork of it runs there: fork it without placement, then bring the fork "
                              "to this computer with sandbox_move (to: local)").arg(what);
    return QStringLiteral("%1 is on this computer, and a checkpoint of this computer goes to the cloud only through a move: fork it "
                          "here (without placement), then send the fork with sandbox_move (to: cloud)").arg(what);
}

void CheckpointForker::forkFrom(const Checkpoint &c, bool made, const QString &name, qint64 startedAt, ForkDone done)
{
    QPointer<CheckpointForker> guard(this);
    m_jobs.markInUse(c.id);   // the budget leaves it alone until the fork is made
    done = [guard, id = c.id, done](const ForkOutcome &o) {
        if (guard)
            guard->m_jobs.unmarkInUse(id);
        done(o);
    };
    ForkOutcome o;
    o.checkpoint = c;
    o.checkpointMade = made;
    if (c.inCloud)
        return forkInCloud(c, o, name, startedAt, std::move(done));
    if (!c.cloneState.isEmpty())
        return forkClone(c, o, name, startedAt, std::move(done));
    if (c.workspaceCopy.isEmpty()) {
        o.error = QStringLiteral("checkpoint %1 is of a direct-mode sandbox: its folder is the user's own and not in the "
                                 "checkpoint, and a fork would share it, so it is refused").arg(c.id);
        return done(o);
    }
    if (!QFileInfo(c.workspaceCopy).isDir()) {
        o.error = QStringLiteral("the workspace copy of checkpoint %1 is missing from the host").arg(c.id);
        return done(o);
    }
    QString error;
    const std::optional<Workspace> workspace = m_sandboxes.workspaces().createManaged(error);
    if (!workspace) {
        o.error = error;
        return done(o);
    }
    QPointer<CheckpointForker> self(this);
    m_copy.replace(c.workspaceCopy, workspace->hostPath, [self, c, o, name, startedAt, done, wsId = workspace->id](
                                                             bool copied, qint64, const QString &copyError) mutable {
        if (!self)
            return;
        // A fork that is not made leaves nothing: its workspace copy and record go again.
        const auto discard = [self, wsId, done](const ForkOutcome &failed) {
            if (self)
                self->discardWorkspace(wsId);
            done(failed);
        };
        if (!copied) {
            o.error = QStringLiteral("no fork was made: %1").arg(copyError);
            return discard(o);
        }
        SandboxCreateRequest request;
        request.workspaceId = wsId;
        request.templateRef = c.templateRef;
        self->create(request, c, o, name, startedAt, [discard, done](const ForkOutcome &forked) {
            forked.ok ? done(forked) : discard(forked);
        });
    });
}

void CheckpointForker::discardWorkspace(const QString &workspaceId)
{
    QString error;
    const QString folder = m_sandboxes.workspaces().forgetUnusedManaged(workspaceId, error);
    if (!error.isEmpty())
        qCWarning(lcFork).noquote() << "the workspace of a fork that was not made stays:" << error;
    if (folder.isEmpty())
        return;   // a (failed) sandbox record names it: it goes with that record
    m_copy.remove(folder, [folder](bool ok) {
        if (!ok)
            qCWarning(lcFork).noquote() << "cannot remove" << folder << "(a fork that was not made)";
    });
}

void CheckpointForker::forkClone(const Checkpoint &c, ForkOutcome o, const QString &name, qint64 startedAt, ForkDone done)
{
    const std::optional<SandboxView> parent = m_sandboxes.get(c.sandboxId);
    CloneCheckpointWork *work = m_jobs.cloneWork();
    if (!parent || !parent->workspace || parent->workspace->mode != WorkspaceMode::Clone || !work
        || !CloneCheckpointWork::holdsState(c.cloneState)) {
        o.error = QStringLiteral("the clone's git state of checkpoint %1 is missing from the host").arg(c.id);
        return done(o);
    }
    const Workspace repository = *parent->workspace;
    QPointer<CheckpointForker> self(this);
    work->checkHost(repository.hostPath, c.cloneState, [self, c, o, name, startedAt, done, repository](bool ok,
                                                                                                     const QString &error) mutable {
        if (!self)
            return;
        if (!ok) {
            o.error = QStringLiteral("no fork was made: %1").arg(error);
            return done(o);
        }
        // A second clone of the same host repository; the checkpoint's work goes into it before the
        // sandbox counts as made.
        SandboxCreateRequest request;
        request.workspaceId = repository.id;
        request.templateRef = c.templateRef;
        request.alongside = true;
        self->create(request, c, o, name, startedAt, done);
    });
}

void CheckpointForker::forkInCloud(const Checkpoint &c, ForkOutcome o, const QString &name, qint64 startedAt, ForkDone done)
{
    // A new cloud sandbox from the cloud template: its disk, workspace and a clone's work (and its
    // memory, when kept) are in the template; no agent or size is passed (the template has them).
    const std::optional<SandboxView> parent = m_sandboxes.get(c.sandboxId);
    SandboxCreateRequest request;
    request.placement = QStringLiteral("cloud");
    request.templateRef = c.templateRef;
    if (parent && parent->record.isCloud())
        request.size = parent->record.cloudSize;
    if (parent && parent->workspace && parent->workspace->mode == WorkspaceMode::Clone) {
        request.workspaceId = parent->workspace->id;
        request.alongside = true;
    }
    create(request, c, std::move(o), name, startedAt, std::move(done));
}

void CheckpointForker::create(const SandboxCreateRequest &made, const Checkpoint &c, ForkOutcome o, const QString &name,
                              qint64 startedAt, ForkDone done)
{
    QPointer<CheckpointForker> self(this);
    const bool clone = made.alongside;
    SandboxCreateRequest request = made;
    if (CheckpointJobs::needsFill(c)) {
        // A clone's work and the images kept go into the fork before it counts as made.
        request.prepare = [self, c](const RunningSandbox &running, std::function<void(bool, const QString &)> prepared) {
            if (!self)
                return prepared(false, QStringLiteral("chat2sbx is stopping"));
            self->m_jobs.fillNewVm(running, c, std::move(prepared));
        };
    }
    m_sandboxes.create(request, [self, c, o, name, startedAt, done, clone](const SandboxOutcome &created) mutable {
        if (!self)
            return;
        if (!created.ok) {
            o.error = QStringLiteral("no fork was made: %1").arg(self->m_sandboxes.publicText(created.error));
            return done(o);
        }
        QString forkError;
        const CheckpointRepository::Fork fork{created.view.record.id, c.id, c.sandboxId, name, self->m_clock.nowMs()};
        if (!self->m_repo.insertFork(fork, forkError))   // the sandbox works; only its parent goes unshown
            qCWarning(lcFork).noquote() << forkError;
        qCInfo(lcFork).noquote() << "sandbox" << fork.sandboxId << "forked from" << c.id << "of" << c.sandboxId;
        o.ok = true;
        o.view = created.view;
        o.tookMs = self->m_clock.nowMs() - startedAt;
        if (c.inCloud) {
            o.notes << QStringLiteral("the fork is a sandbox of its own in Docker's cloud (billed while it runs), made from the "
                                      "checkpoint's cloud template with its disk and ~/workspace%1")
                           .arg(clone ? QStringLiteral("; its clone's work comes home on its own branch chat2sbx/%1 "
                                                       "(export_changes)").arg(fork.sandboxId)
                                      : QString())
                    << (c.keepsMemory ? QStringLiteral("its memory and the processes that ran at the checkpoint came along and run on")
                                      : QStringLiteral("memory and processes are not in it (the checkpoint kept the disk only)"));
            return done(o);
        }
        if (clone)
            o.notes << QStringLiteral("the fork is a clone of the same host repository holding the checkpoint's commits, branches "
                                      "and uncommitted changes; its work comes home on its own branch chat2sbx/%1 "
                                      "(export_changes, and before it is destroyed)")
                           .arg(fork.sandboxId);
        else
            o.notes << QStringLiteral("the fork has its own copy of the workspace and its own VM from the checkpoint's disk");
        if (c.dockerImages.isEmpty())
            o.notes << QStringLiteral("memory, processes and the parent's Docker images are not in it");
        else
            o.notes << QStringLiteral("the Docker images %1 were loaded into it; memory, processes, the parent's other images and "
                                      "its containers are not in it").arg(c.dockerImages.join(QStringLiteral(", ")));
        done(o);
    });
}

} // namespace chat2sbx
