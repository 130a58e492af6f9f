#include "sandbox/changes/CheckpointRestorer.h"

#include "core/Clock.h"
#include "sandbox/changes/CheckpointJobs.h"
#include "sandbox/changes/CheckpointTaker.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/changes/WorkspaceCopy.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcRestore, "chat2sbx.checkpoint")

const QString kRestoringFor = QStringLiteral("being restored");

// Failed after the undo checkpoint was saved and before anything was restored.
RestoreOutcome restoreUnchanged(const Checkpoint &target, const Checkpoint &undo, const QString &why)
{
    RestoreOutcome o;
    o.restored = target;
    o.undo = undo;
    o.error = QStringLiteral("nothing was changed: %1 (the sandbox as it was is checkpoint %2)").arg(why, undo.id);
    return o;
}

} // namespace

CheckpointRestorer::CheckpointRestorer(CheckpointJobs &jobs, CheckpointTaker &taker, QObject *parent)
    : QObject(parent), m_jobs(jobs), m_taker(taker), m_repo(jobs.repo()), m_sandboxes(jobs.sandboxes()), m_copy(jobs.copy()),
      m_clock(jobs.clock())
{
}

QString CheckpointRestorer::refusal(const QString &sandboxId, const std::optional<Checkpoint> &c, const QString &checkpointId) const
{
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view || !view->workspace)
        return QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
    if (const QString why = CheckpointJobs::whyNotUsable(c, checkpointId); !why.isEmpty())
        return why;
    if (c->sandboxId != sandboxId)
        return QStringLiteral("checkpoint %1 is of sandbox %2, not %3: restore it into %2").arg(c->id, c->sandboxId, sandboxId);
    const Workspace &w = *view->workspace;
    if (view->record.isCloud() && !c->inCloud)
        return QStringLiteral("sandbox %1 runs in Docker's cloud now and checkpoint %2 is a template of this computer: bring it back "
                              "first (sandbox_move with to: local), then restore, or fork the checkpoint into a new sandbox here")
            .arg(sandboxId, checkpointId);
    if (!view->record.isCloud() && c->inCloud)
        return QStringLiteral("checkpoint %2 is a template in Docker's cloud and sandbox %1 runs on this computer now: move it to the "
                              "cloud first (sandbox_move with to: cloud), then restore, or fork the checkpoint into a new cloud "
                              "sandbox (sandbox_fork)").arg(sandboxId, checkpointId);
    if (w.mode == WorkspaceMode::Clone && !c->inCloud && (!m_jobs.cloneWork() || !CloneCheckpointWork::holdsState(c->cloneState)))
        return QStringLiteral("the clone's git state of checkpoint %1 is missing from the host").arg(c->id);
    if (w.isManaged() && !c->workspaceCopy.isEmpty() && !QFileInfo(c->workspaceCopy).isDir())
        return QStringLiteral("the workspace copy of checkpoint %1 is missing from the host").arg(c->id);
    if (m_repo.pendingRestore(sandboxId))
        return QStringLiteral("sandbox %1 is being restored already").arg(sandboxId);
    return {};
}

void CheckpointRestorer::restore(const RestoreRequest &request, RestoreStarted started, RestoreDone done)
{
    const QString &sandboxId = request.sandboxId;
    const QString &checkpointId = request.checkpointId;
    RestoreOutcome refused;
    const std::optional<Checkpoint> target = m_repo.find(checkpointId);
    refused.error = refusal(sandboxId, target, checkpointId);
    if (refused.error.isEmpty() && request.running == RunningCommands::Refuse && m_jobs.sessions().hasRunning(sandboxId))
        refused.error = QStringLiteral("commands still run in sandbox %1 (bash_list shows them); a restore stops the sandbox and "
                                       "ends them: wait for them, or call again with end_running_commands: true").arg(sandboxId);
    if (!refused.error.isEmpty())
        return done(refused);
    QPointer<CheckpointRestorer> self(this);
    m_jobs.markInUse(checkpointId);   // the budget leaves it alone until the restore ends
    done = [self, checkpointId, done](const RestoreOutcome &o) {
        if (self)
            self->m_jobs.unmarkInUse(checkpointId);
        done(o);
    };
    if (target->cloneState.isEmpty())
        return begin(sandboxId, *target, std::move(started), std::move(done));
    // A clone's saved work builds on commits of the host repository: checked before anything changes.
    const QString repository = m_sandboxes.get(sandboxId)->workspace->hostPath;
    m_jobs.cloneWork()->checkHost(repository, target->cloneState, [self, sandboxId, target = *target, started, done](
                                                                             bool ok, const QString &error) {
        if (!self)
            return;
        if (!ok) {
            RestoreOutcome o;
            o.restored = target;
            o.error = error;
            return done(o);
        }
        self->begin(sandboxId, target, started, done);
    });
}

void CheckpointRestorer::begin(const QString &sandboxId, const Checkpoint &target, RestoreStarted started,
                               RestoreDone done)
{
    const qint64 startedAt = m_clock.nowMs();
    const bool clone = !target.cloneState.isEmpty();
    QPointer<CheckpointRestorer> self(this);
    // What is there now is saved first: the restore can be undone, and a failed one is put back.
    CheckpointRequest present;
    present.sandboxId = sandboxId;
    present.label = target.label.isEmpty() ? QStringLiteral("before restoring %1").arg(target.id)
                                           : QStringLiteral("before restoring “%1”").arg(target.label.left(100));
    present.running = RunningCommands::MayEnd;   // checked above: the caller said they may end, or none run
    present.scope = CheckpointScope::VmOnly;     // a direct folder is the user's own, and left as it is
    present.after = AfterSave::KeepHeld;         // the restore goes on with it
    m_taker.take(
        present, {},
        [self, sandboxId, target, started, done, startedAt, clone](const CheckpointOutcome &undo) {
            if (!self)
                return;
            RestoreOutcome o;
            o.restored = target;
            if (!undo.ok) {
                o.error = QStringLiteral("nothing was changed: the sandbox as it is now could not be checkpointed first (%1)")
                              .arg(undo.error);
                return done(o);
            }
            // The only copy of a clone's work not yet exported: never the budget's to evict.
            QString pinError;
            if (clone && !self->m_jobs.pinAsUndo(undo.checkpoint.id, sandboxId, pinError))
                qCWarning(lcRestore).noquote() << "the undo checkpoint" << undo.checkpoint.id << "is not pinned:" << pinError;
            if (!target.inCloud)   // held stopped by the save already
                return self->persistAndApply(sandboxId, target, undo.checkpoint, started, startedAt, done);
            // A cloud save leaves the sandbox running and free: held (and stopped) now.
            self->m_sandboxes.holdStopped(sandboxId, kRestoringFor, [self, sandboxId, target, undo, started, startedAt, done](
                                                                        bool held, const QString &holdError, const QString &) {
                if (!self)
                    return;
                if (!held)
                    return done(restoreUnchanged(target, undo.checkpoint, holdError));
                self->persistAndApply(sandboxId, target, undo.checkpoint, started, startedAt, done);
            });
        });
}

void CheckpointRestorer::persistAndApply(const QString &sandboxId, const Checkpoint &target, const Checkpoint &undo,
                                         const RestoreStarted &started, qint64 startedAt, const RestoreDone &done)
{
    const CheckpointRepository::PendingRestore pending{sandboxId, target.id, undo.id, m_clock.nowMs()};
    QString error;
    if (!m_repo.beginRestore(pending, error)) {
        m_sandboxes.release(sandboxId);
        return done(restoreUnchanged(target, undo, error));
    }
    if (started)
        started(undo);
    apply(pending, startedAt, done);
}

void CheckpointRestorer::apply(const CheckpointRepository::PendingRestore &pending, qint64 startedAtMs,
                               RestoreDone done)
{
    RestoreOutcome o;
    o.restored = m_repo.find(pending.checkpointId).value_or(Checkpoint{});
    o.undo = m_repo.find(pending.undoCheckpointId).value_or(Checkpoint{});
    QPointer<CheckpointRestorer> self(this);
    replaceWith(pending.sandboxId, o.restored, [self, pending, o, startedAtMs, done](bool ok, const QString &error) mutable {
        if (!self)
            return;
        if (ok) {
            self->end(pending.sandboxId);
            o.ok = true;
            o.tookMs = self->m_clock.nowMs() - startedAtMs;
            if (o.restored.inCloud) {
                o.broughtBack << QStringLiteral("the sandbox's disk in Docker's cloud (installed packages, HOME, ~/workspace) as it was "
                                                "at the checkpoint");
                if (o.restored.keepsMemory)
                    o.broughtBack << QStringLiteral("its memory and the processes that ran at the checkpoint: they run on");
                o.notes << (o.restored.keepsMemory ? QStringLiteral("commands chat2sbx ran (bash_list) are not reattached: a process "
                                                                   "that ran in one goes on, without its output here")
                                                   : QStringLiteral("memory and processes are not brought back (the checkpoint kept "
                                                                    "the disk only): the sandbox starts afresh"))
                        << QStringLiteral("the undo checkpoint %1 keeps the disk of what was there just before, not its memory")
                               .arg(o.undo.id)
                        << QStringLiteral("published ports and network rules of the sandbox are asked for again if needed");
                qCInfo(lcRestore).noquote() << "cloud sandbox" << pending.sandboxId << "restored to" << pending.checkpointId;
                return done(o);
            }
            o.broughtBack << QStringLiteral("the VM's disk (installed packages, HOME) as it was at the checkpoint");
            if (!o.restored.workspaceCopy.isEmpty())
                o.broughtBack << QStringLiteral("the workspace as it was at the checkpoint");
            if (!o.restored.dockerImages.isEmpty())
                o.broughtBack << QStringLiteral("the Docker images %1 (docker load)").arg(o.restored.dockerImages.join(QStringLiteral(", ")));
            if (!o.restored.cloneState.isEmpty())
                o.broughtBack << QStringLiteral("the clone as it was at the checkpoint: commits, branches, HEAD, staged and unstaged "
                                                "changes, untracked files")
                              << QStringLiteral("what the clone held just before is pinned checkpoint %1: restoring it goes back, "
                                                "export_changes brings work home as a branch")
                                     .arg(o.undo.id);
            o.notes << QStringLiteral("memory and processes are not brought back: the sandbox starts afresh at its next tool call")
                    << QStringLiteral("the sandbox's own Docker images and containers are as a fresh sandbox has them%1; the ones "
                                      "it had just before are not in the undo checkpoint")
                           .arg(o.restored.dockerImages.isEmpty() ? QString() : QStringLiteral(", but for the images the checkpoint kept"));
            qCInfo(lcRestore).noquote() << "sandbox" << pending.sandboxId << "restored to" << pending.checkpointId;
            return done(o);
        }
        qCWarning(lcRestore).noquote() << "restoring" << pending.sandboxId << "to" << pending.checkpointId << "failed:" << error
                                       << "; putting it back as" << pending.undoCheckpointId;
        self->replaceWith(pending.sandboxId, o.undo, [self, pending, o, error, startedAtMs, done](bool back, const QString &backError) mutable {
            if (!self)
                return;
            self->end(pending.sandboxId);
            o.tookMs = self->m_clock.nowMs() - startedAtMs;
            o.error = back ? QStringLiteral("restoring checkpoint %1 failed: %2. The sandbox is as it was before (checkpoint %3)")
                                 .arg(pending.checkpointId, error, pending.undoCheckpointId)
                           : QStringLiteral("restoring checkpoint %1 failed: %2; putting the sandbox back failed too: %3. Its state "
                                            "before is checkpoint %4; sandbox_destroy removes the broken sandbox")
                                 .arg(pending.checkpointId, error, backError, pending.undoCheckpointId);
            done(o);
        });
    });
}

void CheckpointRestorer::replaceWith(const QString &sandboxId, const Checkpoint &checkpoint, StepDone done)
{
    if (!checkpoint.isReady())
        return done(false, QStringLiteral("checkpoint %1 is not ready").arg(checkpoint.id));
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view || !view->workspace)
        return done(false, QStringLiteral("sandbox %1 is gone").arg(sandboxId));
    QPointer<CheckpointRestorer> self(this);
    if (checkpoint.inCloud)   // the template holds everything: disk, workspace, a clone's work (and memory)
        return m_sandboxes.replaceHeldCloudRuntime(sandboxId, checkpoint.templateRef, [self, done](bool ok, const QString &error) {
            if (self)
                done(ok, ok ? QString() : self->m_sandboxes.publicText(error));
        });
    const auto replaceVm = [self, sandboxId, checkpoint, done] {
        if (!self)
            return;
        self->m_sandboxes.replaceHeldRuntime(sandboxId, checkpoint.templateRef, [self, sandboxId, checkpoint, done](bool ok,
                                                                                                           const QString &error) {
            if (!self)
                return;
            if (!ok)
                return done(false, self->m_sandboxes.publicText(error));
            self->fillNewVm(sandboxId, checkpoint, done);
        });
    };
    // A direct folder is the user's own: only the VM's side goes back.
    if (!view->workspace->isManaged() || checkpoint.workspaceCopy.isEmpty())
        return replaceVm();
    m_copy.replace(checkpoint.workspaceCopy, view->workspace->hostPath, [done, replaceVm](bool ok, qint64, const QString &error) {
        if (!ok)
            return done(false, error);
        replaceVm();
    });
}

void CheckpointRestorer::fillNewVm(const QString &sandboxId, const Checkpoint &checkpoint, StepDone done)
{
    if (!CheckpointJobs::needsFill(checkpoint))
        return done(true, QString());
    // Woken for this job only: the sandbox stays held until the restore ends.
    RunningSandbox running;
    QString error;
    if (!m_sandboxes.resolveHeld(sandboxId, running, error))
        return done(false, error);
    m_jobs.fillNewVm(running, checkpoint, std::move(done));
}

void CheckpointRestorer::end(const QString &sandboxId)
{
    QString error;
    if (!m_repo.endRestore(sandboxId, error))
        qCWarning(lcRestore).noquote() << error;   // the next start repeats the restore: the same result
    m_sandboxes.release(sandboxId);
    m_jobs.announce(sandboxId);
}

void CheckpointRestorer::finishInterrupted()
{
    for (const CheckpointRepository::PendingRestore &pending : m_repo.pendingRestores()) {
        qCInfo(lcRestore).noquote() << "the restore of" << pending.sandboxId << "to" << pending.checkpointId
                                    << "was interrupted by a stop of chat2sbx: finishing it";
        // Held before the reconciler looks at `sbx ls` (in this turn): it may find no VM under the name.
        QPointer<CheckpointRestorer> self(this);
        m_sandboxes.holdStopped(pending.sandboxId, kRestoringFor, [self, pending](bool ok, const QString &error, const QString &) {
            if (!self)
                return;
            if (!ok) {   // destroyed or failed meanwhile: nothing to finish
                qCWarning(lcRestore).noquote() << "the interrupted restore of" << pending.sandboxId << "is dropped:" << error;
                QString endError;
                self->m_repo.endRestore(pending.sandboxId, endError);
                return;
            }
            self->apply(pending, pending.startedAt, [](const RestoreOutcome &o) {
                if (!o.ok)
                    qCWarning(lcRestore).noquote() << o.error;
            });
        });
    }
}

} // namespace chat2sbx
