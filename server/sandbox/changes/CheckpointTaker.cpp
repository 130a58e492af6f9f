#include "sandbox/changes/CheckpointTaker.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/changes/CheckpointJobs.h"
#include "sandbox/changes/CheckpointRemoval.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/changes/DockerImageKeeper.h"
#include "sandbox/changes/WorkspaceCopy.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QDir>
#include <QLoggingCategory>
#include <QPointer>

#include <memory>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcCheckpointTaker, "chat2sbx.checkpoint")

const QString kHeldFor = QStringLiteral("being checkpointed");
} // namespace

CheckpointTaker::CheckpointTaker(CheckpointJobs &jobs, CheckpointRemoval &removal, QObject *parent)
    : QObject(parent), m_jobs(jobs), m_removal(removal)
{
}

void CheckpointTaker::fail(const Checkpoint &c, const QString &why, bool held, const CheckpointDone &done)
{
    QString error;
    m_jobs.repo().finish(c.id, CheckpointState::Failed, 0, why, m_jobs.clock().nowMs(), error);
    QDir(m_jobs.copyDir(c.id)).removeRecursively();
    // Made or not: nothing of it stays.
    if (c.inCloud)
        m_jobs.sbx().cloudTemplateRemove(c.templateRef, [](const SbxResult &) {});
    else
        m_jobs.sbx().templateRemove(c.templateRef, [](const SbxResult &) {});
    if (!c.dockerImages.isEmpty())   // a docker save may have left its archive in the sandbox's HOME
        dropDockerArchive(c, held, [] {});
    if (held)
        m_jobs.sandboxes().release(c.sandboxId);
    m_jobs.announce(c.sandboxId);
    CheckpointOutcome o;
    o.error = why;
    o.checkpoint = c;
    o.checkpoint.state = CheckpointState::Failed;
    o.checkpoint.failure = why;
    done(o);
}

void CheckpointTaker::take(const CheckpointRequest &request, CheckpointStarted started, CheckpointDone done)
{
    const QString &sandboxId = request.sandboxId;
    const QStringList &dockerImages = request.dockerImages;
    const AfterSave after = request.after;
    CheckpointOutcome refused;
    if (const QString bad = DockerImageKeeper::invalid(dockerImages); !bad.isEmpty()) {
        refused.error = bad;
        return done(refused);
    }
    const std::optional<SandboxView> view = m_jobs.sandboxes().get(sandboxId);
    if (!view || !view->workspace) {
        refused.error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return done(refused);
    }
    const Workspace &w = *view->workspace;
    if (view->record.isCloud())
        return takeInCloud(request, *view, std::move(started), std::move(done));
    if (request.keepMemory) {
        refused.error = QStringLiteral("keep_memory needs a sandbox in Docker's cloud: sbx on this computer saves a stopped sandbox's "
                                       "disk only. Call again without keep_memory, or move sandbox %1 to the cloud first "
                                       "(sandbox_move with to: cloud)").arg(sandboxId);
        return done(refused);
    }
    if (w.mode == WorkspaceMode::Clone && !m_jobs.cloneWork()) {
        refused.error = QStringLiteral("clone sandboxes cannot be checkpointed here: bring their work home with export_changes");
        return done(refused);
    }
    if (w.mode == WorkspaceMode::Direct && request.scope != CheckpointScope::VmOnly) {
        refused.error = QStringLiteral("sandbox %1 works on the user's own folder %2 (direct mode), which a checkpoint never copies; "
                                       "call again with vm_only: true to checkpoint only the VM's side (installed packages, HOME): "
                                       "a restore then leaves the folder as it is")
                            .arg(sandboxId, w.hostPath);
        return done(refused);
    }
    if (request.running == RunningCommands::Refuse && m_jobs.sessions().hasRunning(sandboxId)) {
        refused.error = QStringLiteral("commands still run in sandbox %1 (bash_list shows them); a checkpoint stops the sandbox and "
                                       "ends them: wait for them, or call again with end_running_commands: true").arg(sandboxId);
        return done(refused);
    }
    Checkpoint c;
    c.id = newId("ckp_");
    c.sandboxId = sandboxId;
    c.label = request.label.left(kMaxCheckpointLabelChars);
    c.templateRef = Checkpoint::templateRefFor(c.id);
    // A workspace in the VM (moved back from the cloud) is in the template already.
    if (w.isManaged() && !view->record.workspaceInVm)
        c.workspaceCopy = m_jobs.copyDir(c.id) + QStringLiteral("/workspace");
    if (w.mode == WorkspaceMode::Clone)
        c.cloneState = m_jobs.copyDir(c.id) + QStringLiteral("/git");
    c.dockerImages = dockerImages;
    c.dockerImages.removeDuplicates();
    if (!recordStarted(c, started, refused.error))
        return done(refused);
    QStringList notKept{QStringLiteral("memory and running processes are not kept: commands end, the sandbox starts afresh "
                                       "at its next tool call"),
                        c.dockerImages.isEmpty()
                            ? QStringLiteral("the sandbox's own Docker images and containers (/var/lib/docker) are not in a checkpoint "
                                             "(docker_images names images to keep)")
                            : QStringLiteral("the sandbox's other Docker images and all its containers are not in the checkpoint")};
    if (w.mode == WorkspaceMode::Direct)
        notKept << QStringLiteral("the direct-mode folder %1 is the user's own and is not in the checkpoint").arg(w.hostPath);
    // sbx-contract.md: a template keeps every file written in the VM, secrets written to files too.
    QStringList kept{QStringLiteral("the VM's disk: installed packages, HOME and every file written in the VM (secrets written to "
                                    "files too), saved as a template on this computer until the checkpoint is deleted")};
    if (!c.workspaceCopy.isEmpty())
        kept << QStringLiteral("the workspace, copied on this computer");
    else if (view->record.workspaceInVm)
        kept << QStringLiteral("the workspace at ~/workspace, inside the VM's disk");
    if (w.mode == WorkspaceMode::Clone) {
        kept << QStringLiteral("the clone's git state: its commits and branches, HEAD, staged and unstaged changes and untracked "
                               "files, kept on this computer as a git bundle (%1 is only read)").arg(w.hostPath);
        notKept << QStringLiteral("files git ignores in the clone (build output, dependencies) are not in the checkpoint's git state");
    }
    if (!c.dockerImages.isEmpty())
        kept << QStringLiteral("the Docker images %1, saved with docker save into the checkpoint's disk and loaded into the sandbox "
                               "a restore or fork makes").arg(c.dockerImages.join(QStringLiteral(", ")));
    const Notes notes{kept, notKept};   // what it holds, what it does not
    const QString source = c.workspaceCopy.isEmpty() ? QString() : w.hostPath;
    if (c.cloneState.isEmpty() && c.dockerImages.isEmpty())
        return saveVm(c, notes, source, after, 0, std::move(done));
    // In the VM while it runs (which wakes a sleeping one): the named images into HOME, then a clone's
    // git state; then the VM's disk.
    RunningSandbox running;
    QString resolveError;
    if (!m_jobs.sandboxes().resolveRunning(sandboxId, running, resolveError))
        return fail(c, resolveError, false, done);
    QPointer<CheckpointTaker> self(this);
    const auto saveInVm = [self, c, notes, source, after, done, running] {
        if (!self)
            return;
        if (c.cloneState.isEmpty())
            return self->saveVm(c, notes, source, after, 0, done);
        self->m_jobs.cloneWork()->save(running, c.cloneState, [self, c, notes, after, done](bool ok, qint64 bytes, const QString &saveError) {
            if (!self)
                return;
            if (!ok)
                return self->fail(c, self->m_jobs.sandboxes().publicText(saveError), false, done);
            self->saveVm(c, notes, QString(), after, bytes, done);
        });
    };
    if (c.dockerImages.isEmpty())
        return saveInVm();
    m_jobs.docker().save(running.runtimeName, c.id, c.dockerImages, [self, c, done, saveInVm](bool ok, qint64, const QString &saveError) {
        if (!self)
            return;
        if (!ok)
            return self->fail(c, self->m_jobs.sandboxes().publicText(saveError), false, done);
        saveInVm();
    });
}

QString CheckpointTaker::baseTemplateOf(const QString &sandboxId) const
{
    const std::optional<SandboxView> v = m_jobs.sandboxes().get(sandboxId);
    if (v && !v->record.templateRef.isEmpty())
        return v->record.templateRef;
    // Made by an older version: a fork's base is its checkpoint's template; other bases are unknown.
    if (const auto fork = m_jobs.repo().forkOf(sandboxId))
        if (const auto from = m_jobs.repo().find(fork->checkpointId))
            return from->templateRef;
    return {};
}

QString CheckpointTaker::baseGoneText(const QString &sandboxId, const QString &base) const
{
    QString text = QStringLiteral("no checkpoint was made: sandbox %1 was made from the template %2, which sbx no longer has "
                                  "(`sbx template ls` does not list it), and sbx cannot save a sandbox whose base image is gone. "
                                  "The sandbox is intact and works as before.").arg(sandboxId, base);
    if (base == m_jobs.config().templateRef())
        text += QStringLiteral(" Run `chat2sbx setup` to make the template again, then checkpoint it.");
    return text;
}

void CheckpointTaker::saveVm(const Checkpoint &c, const Notes &notes, const QString &source,
                               AfterSave after, qint64 cloneBytes, CheckpointDone done)
{
    QPointer<CheckpointTaker> self(this);
    // At once: the VM stopped and held, and sbx's templates read, since sbx cannot save a sandbox
    // whose base image is gone (sbx-contract.md, "How sbx fails in the field").
    struct Ready {
        int pending = 2;
        bool held = false;
        QString holdError;
        QString runtime;
        bool listed = false;
        QStringList templates;
    };
    const auto ready = std::make_shared<Ready>();
    const auto bothDone = [self, c, done, ready](std::function<void(const QString &runtime)> save) {
        if (!self || --ready->pending > 0)
            return;
        if (!ready->held)
            return self->fail(c, ready->holdError, false, done);
        const QString base = self->baseTemplateOf(c.sandboxId);
        if (ready->listed && !base.isEmpty() && !ready->templates.contains(base))
            return self->fail(c, self->baseGoneText(c.sandboxId, base), true, done);
        save(ready->runtime);
    };
    const auto save = [self, c, done, notes, source, after, cloneBytes](const QString &runtime) {
        self->m_jobs.sbx().templateSave(runtime, c.templateRef, [self, c, done, notes, source, after, cloneBytes](const SbxResult &saved) {
            if (!self)
                return;
            if (!saved.ok)
                return self->fail(c, self->m_jobs.sandboxes().publicText(saved.error), true, done);
            const auto finish = [self, c, done, notes, after](qint64 size) {
                if (self)
                    self->finishReady(c, notes, size, after == AfterSave::Release, done);
            };
            // The template's own size (as `sbx template ls` reports it) and the workspace copy, side by
            // side: the budget counts both. And the images' archive leaves the source sandbox (the
            // template holds it).
            struct Parts {
                int pending = 2;
                qint64 bytes = 0;
                QString error;
            };
            const auto parts = std::make_shared<Parts>();
            parts->bytes = cloneBytes;
            parts->pending = c.dockerImages.isEmpty() ? 2 : 3;
            const auto partDone = [self, c, done, finish, parts](qint64 bytes, const QString &error) {
                parts->bytes += bytes;
                if (parts->error.isEmpty())
                    parts->error = error;
                if (!self || --parts->pending > 0)
                    return;
                if (!parts->error.isEmpty())
                    return self->fail(c, parts->error, true, done);
                finish(parts->bytes);
            };
            self->m_jobs.sbx().templateSizes([partDone, ref = c.templateRef](const SbxResult &listed, const QHash<QString, qint64> &sizes) {
                const qint64 bytes = listed.ok ? sizes.value(ref, -1) : -1;
                if (bytes < 0)
                    qCWarning(lcCheckpointTaker).noquote() << "the size of" << ref << "is unknown (sbx template ls):"
                                                      << (listed.ok ? QStringLiteral("not listed with a size") : listed.error);
                partDone(qMax<qint64>(bytes, 0), QString());
            });
            if (!c.dockerImages.isEmpty())
                self->dropDockerArchive(c, true, [partDone] { partDone(0, QString()); });
            if (source.isEmpty())
                return partDone(0, QString());
            self->m_jobs.copy().copy(source, c.workspaceCopy, [partDone](bool copied, qint64 size, const QString &copyError) {
                partDone(copied ? size : 0, copied ? QString() : copyError);
            });
        });
    };
    m_jobs.sandboxes().holdStopped(c.sandboxId, kHeldFor, [ready, bothDone, save](bool ok, const QString &holdError, const QString &runtime) {
        ready->held = ok;
        ready->holdError = holdError;
        ready->runtime = runtime;
        bothDone(save);
    });
    m_jobs.sbx().templateList([ready, bothDone, save](const SbxResult &listed, const QStringList &templates) {
        ready->listed = listed.ok;
        ready->templates = templates;
        bothDone(save);
    });
}

bool CheckpointTaker::recordStarted(Checkpoint &c, const CheckpointStarted &started, QString &error)
{
    c.createdAt = m_jobs.clock().nowMs();
    if (!m_jobs.repo().insert(c, error))   // recorded before anything is acted on
        return false;
    m_jobs.announce(c.sandboxId);
    if (started)
        started(c);
    return true;
}

void CheckpointTaker::finishReady(const Checkpoint &c, const Notes &notes, qint64 size, bool releaseHold, const CheckpointDone &done)
{
    QString finishError;
    if (m_jobs.repo().finish(c.id, CheckpointState::Ready, size, {}, m_jobs.clock().nowMs(), finishError) != 1)
        return fail(c, finishError.isEmpty() ? QStringLiteral("the checkpoint was removed meanwhile") : finishError,
                    !c.inCloud, done);   // a local save holds its sandbox; a cloud one holds nothing
    if (releaseHold)
        m_jobs.sandboxes().release(c.sandboxId);
    m_jobs.announce(c.sandboxId);
    CheckpointOutcome o;
    o.ok = true;
    o.checkpoint = *m_jobs.repo().find(c.id);
    o.kept = notes.first;
    o.notes = notes.second;
    QSet<QString> keep = m_jobs.inUse();
    keep.insert(c.id);
    o.evicted = m_removal.evictOverBudget(keep, o.overBudget);
    done(o);
}

void CheckpointTaker::dropDockerArchive(const Checkpoint &c, bool held, std::function<void()> then)
{
    // The VM runs for it: a held sandbox is woken for its holder, a free one only when it runs already.
    RunningSandbox running;
    QString error;
    const std::optional<SandboxView> view = m_jobs.sandboxes().get(c.sandboxId);
    const bool reachable = held ? m_jobs.sandboxes().resolveHeld(c.sandboxId, running, error)
                                : view && view->record.state == SandboxState::Running
                                      && m_jobs.sandboxes().resolveRunning(c.sandboxId, running, error);
    // A sleeping sandbox no job holds (a checkpoint a stop of chat2sbx interrupted): `sbx exec`
    // starts its VM for the drop (it stops again by itself), or every later checkpoint would carry
    // the archive.
    const bool asleep = !held && view && view->record.state == SandboxState::Stopped && !view->record.isUnreachable()
                        && m_jobs.sandboxes().heldFor(c.sandboxId).isEmpty();
    if (!reachable && asleep) {
        qCInfo(lcCheckpointTaker).noquote() << "removing the Docker images' archive of" << c.id << "from sleeping sandbox" << c.sandboxId;
        running.runtimeName = view->record.runtimeName;
    } else if (!reachable) {
        qCWarning(lcCheckpointTaker).noquote() << "the Docker images' archive of" << c.id << "stays in its sandbox:"
                                          << (error.isEmpty() ? QStringLiteral("the sandbox is not running") : error);
        return then();
    }
    m_jobs.docker().drop(running.runtimeName, c.id, [id = c.id, then](bool dropped, const QString &dropError) {
        if (!dropped)
            qCWarning(lcCheckpointTaker).noquote() << "the Docker images' archive of" << id << "stays in its sandbox:" << dropError;
        then();
    });
}

void CheckpointTaker::failInterrupted()
{
    for (const Checkpoint &c : m_jobs.repo().inState(CheckpointState::Saving)) {
        qCInfo(lcCheckpointTaker).noquote() << "checkpoint" << c.id << "of" << c.sandboxId
                                       << "was interrupted by a stop of chat2sbx: removed";
        fail(c, QStringLiteral("chat2sbx stopped while the checkpoint was being saved"), false, [](const CheckpointOutcome &) {});
    }
}

} // namespace chat2sbx
