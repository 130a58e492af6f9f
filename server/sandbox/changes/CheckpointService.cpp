#include "sandbox/changes/CheckpointService.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/changes/CheckpointForker.h"
#include "sandbox/changes/CheckpointRemoval.h"
#include "sandbox/changes/CheckpointRestorer.h"
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
Q_LOGGING_CATEGORY(lcCheckpoint, "chat2sbx.checkpoint")

const QString kHeldFor = QStringLiteral("being checkpointed");
} // namespace

CheckpointService::CheckpointService(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                                     CloneCheckpointWork *cloneWork, QObject *parent)
    : QObject(parent), m_config(config), m_sandboxes(sandboxes), m_sbx(sbx), m_clock(clock), m_cloneWork(cloneWork), m_repo(db),
      m_sessions(db),
      m_copy(new WorkspaceCopy(this)), m_docker(new DockerImageKeeper(sbx, this)),
      m_restorer(new CheckpointRestorer(*this, db, sandboxes, *m_copy, clock, this)),
      m_forker(new CheckpointForker(config, *this, db, sandboxes, *m_copy, clock, this)),
      m_removal(new CheckpointRemoval(config, db, sbx, this))
{
    connect(m_removal, &CheckpointRemoval::removed, this, &CheckpointService::checkpointsChanged);
    m_sweepSoon.setSingleShot(true);
    m_sweepSoon.setInterval(1000);
    connect(&m_sweepSoon, &QTimer::timeout, m_removal, &CheckpointRemoval::sweep);
    connect(&sandboxes, &SandboxService::sandboxesChanged, this, [this] {
        if (!m_sweepSoon.isActive())
            m_sweepSoon.start();
    });
}

CheckpointService::~CheckpointService() = default;

QString CheckpointService::copyDir(const QString &checkpointId) const
{
    return m_config.dataRoot + QStringLiteral("/checkpoints/") + checkpointId;
}

QList<Checkpoint> CheckpointService::list(const QString &sandboxId) const
{
    return m_repo.listFor(sandboxId);
}

QString CheckpointService::whyNotUsable(const std::optional<Checkpoint> &c, const QString &checkpointId)
{
    if (!c)
        return QStringLiteral("unknown checkpoint_id %1 (sandbox_checkpoints lists them)").arg(checkpointId);
    if (c->state == CheckpointState::Saving)
        return QStringLiteral("checkpoint %1 is still being saved: sandbox_checkpoints shows when it is ready").arg(c->id);
    if (c->state == CheckpointState::Failed)
        return QStringLiteral("checkpoint %1 failed and holds nothing (%2)").arg(c->id, c->failure);
    return {};
}

QHash<QString, QList<Checkpoint>> CheckpointService::listLive() const
{
    QHash<QString, QList<Checkpoint>> out;
    for (const Checkpoint &c : m_repo.listLive())
        out[c.sandboxId].append(c);
    return out;
}

std::optional<Checkpoint> CheckpointService::find(const QString &checkpointId) const
{
    return m_repo.find(checkpointId);
}

std::optional<CheckpointRepository::PendingRestore> CheckpointService::pendingRestore(const QString &sandboxId) const
{
    return m_repo.pendingRestore(sandboxId);
}

std::optional<CheckpointRepository::Fork> CheckpointService::forkOf(const QString &sandboxId) const
{
    return m_repo.forkOf(sandboxId);
}

QHash<QString, CheckpointRepository::Fork> CheckpointService::allForks() const
{
    return m_repo.allForks();
}

void CheckpointService::remove(const QString &checkpointId, std::function<void(bool, const QString &)> done)
{
    const std::optional<Checkpoint> c = m_repo.find(checkpointId);
    QString refusal;
    if (!c)
        refusal = QStringLiteral("unknown checkpoint_id %1").arg(checkpointId);
    else if (c->state == CheckpointState::Saving)
        refusal = QStringLiteral("checkpoint %1 is still being saved: delete it once it is ready").arg(c->id);
    else if (m_inUse.contains(c->id) || m_repo.pendingRestoreUsing(c->id))
        refusal = QStringLiteral("checkpoint %1 is being restored or forked right now").arg(c->id);
    else if (m_removal->isTemplateOfLiveSandbox(c->id))
        refusal = QStringLiteral("checkpoint %1 is the template a sandbox still runs from (a fork of it, or one restored to it), "
                                 "and sbx cannot save that sandbox again without it: destroy that sandbox first").arg(c->id);
    if (!refusal.isEmpty())
        return done(false, refusal);
    m_removal->remove(*c, std::move(done));
}

bool CheckpointService::setPinned(const QString &checkpointId, bool pinned, QString &error)
{
    if (!m_repo.find(checkpointId)) {
        error = QStringLiteral("unknown checkpoint_id %1").arg(checkpointId);
        return false;
    }
    if (!m_repo.setPinned(checkpointId, pinned, error))
        return false;
    if (const auto c = m_repo.find(checkpointId))
        emit checkpointsChanged(c->sandboxId);
    return true;
}

bool CheckpointService::pinAsUndo(const QString &checkpointId, const QString &sandboxId, QString &error)
{
    const int released = m_repo.pinAsUndo(checkpointId, sandboxId, error);
    if (released < 0)
        return false;
    if (released > 0)
        qCInfo(lcCheckpoint).noquote() << "checkpoint" << checkpointId << "is the undo of" << sandboxId << "now;" << released
                                       << "older undo checkpoint(s) of it are no longer pinned";
    emit checkpointsChanged(sandboxId);
    return true;
}

void CheckpointService::checkpointBeforeExpiry(const QString &sandboxId, std::function<void(const QString &)> proceed)
{
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view || !view->workspace || !view->workspace->isManaged())
        return proceed(QString());   // a host folder keeps its own work (a clone's comes home as a branch)
    QPointer<CheckpointService> self(this);
    create(sandboxId, QStringLiteral("before idle expiry"), true, nullptr, [self, sandboxId, proceed](const Outcome &o) {
        if (!self)
            return;
        QString pinError;
        if (!o.ok || !self->setPinned(o.checkpoint.id, true, pinError)) {
            qCWarning(lcCheckpoint).noquote() << "no checkpoint of" << sandboxId << "before its idle expiry:" << (o.ok ? pinError : o.error);
            return proceed(QStringLiteral("its checkpoint before expiry failed: %1").arg(o.ok ? pinError : o.error));
        }
        proceed(QStringLiteral("kept as checkpoint %1: sandbox_fork {checkpoint_id: \"%1\"} brings it back").arg(o.checkpoint.id));
    });
}

QHash<QString, CheckpointRepository::PendingRestore> CheckpointService::pendingRestores() const
{
    QHash<QString, CheckpointRepository::PendingRestore> out;
    for (const CheckpointRepository::PendingRestore &p : m_repo.pendingRestores())
        out.insert(p.sandboxId, p);
    return out;
}

void CheckpointService::restore(const QString &sandboxId, const QString &checkpointId, bool endRunningCommands,
                                std::function<void(const Checkpoint &)> started, RestoreDone done)
{
    m_restorer->restore(sandboxId, checkpointId, endRunningCommands, std::move(started), std::move(done));
}

void CheckpointService::fail(const Checkpoint &c, const QString &why, bool held, const Done &done)
{
    QString error;
    m_repo.finish(c.id, CheckpointState::Failed, 0, why, m_clock.nowMs(), error);
    QDir(copyDir(c.id)).removeRecursively();
    m_sbx.templateRemove(c.templateRef, [](const SbxResult &) {});   // made or not: nothing of it stays
    if (!c.dockerImages.isEmpty())   // a docker save may have left its archive in the sandbox's HOME
        dropDockerArchive(c, held, [] {});
    if (held)
        m_sandboxes.release(c.sandboxId);
    emit checkpointsChanged(c.sandboxId);
    Outcome o;
    o.error = why;
    o.checkpoint = c;
    o.checkpoint.state = CheckpointState::Failed;
    o.checkpoint.failure = why;
    done(o);
}

void CheckpointService::create(const QString &sandboxId, const QString &label, bool endRunningCommands,
                               std::function<void(const Checkpoint &)> started, Done done, bool vmOnly,
                               const QStringList &dockerImages)
{
    take(sandboxId, label, endRunningCommands, false, vmOnly, dockerImages, std::move(started), std::move(done));
}

void CheckpointService::createHeld(const QString &sandboxId, const QString &label, bool endRunningCommands, Done done)
{
    take(sandboxId, label, endRunningCommands, true, true, {}, nullptr, std::move(done));
}

void CheckpointService::take(const QString &sandboxId, const QString &label, bool endRunningCommands, bool keepHeld, bool vmOnly,
                             const QStringList &dockerImages, std::function<void(const Checkpoint &)> started, Done done)
{
    Outcome refused;
    if (const QString bad = DockerImageKeeper::invalid(dockerImages); !bad.isEmpty()) {
        refused.error = bad;
        return done(refused);
    }
    const std::optional<SandboxView> view = m_sandboxes.get(sandboxId);
    if (!view || !view->workspace) {
        refused.error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return done(refused);
    }
    const Workspace &w = *view->workspace;
    if (w.mode == WorkspaceMode::Clone && !m_cloneWork) {
        refused.error = QStringLiteral("clone sandboxes cannot be checkpointed here: bring their work home with export_changes");
        return done(refused);
    }
    if (w.mode == WorkspaceMode::Direct && !vmOnly) {
        refused.error = QStringLiteral("sandbox %1 works on the user's own folder %2 (direct mode), which a checkpoint never copies; "
                                       "call again with vm_only: true to checkpoint only the VM's side (installed packages, HOME): "
                                       "a restore then leaves the folder as it is")
                            .arg(sandboxId, w.hostPath);
        return done(refused);
    }
    if (!endRunningCommands && m_sessions.hasRunning(sandboxId)) {
        refused.error = QStringLiteral("commands still run in sandbox %1 (bash_list shows them); a checkpoint stops the sandbox and "
                                       "ends them: wait for them, or call again with end_running_commands: true").arg(sandboxId);
        return done(refused);
    }
    Checkpoint c;
    c.id = newId("ckp_");
    c.sandboxId = sandboxId;
    c.label = label.left(kMaxLabelChars);
    c.templateRef = Checkpoint::templateRefFor(c.id);
    if (w.isManaged())
        c.workspaceCopy = copyDir(c.id) + QStringLiteral("/workspace");
    if (w.mode == WorkspaceMode::Clone)
        c.cloneState = copyDir(c.id) + QStringLiteral("/git");
    c.dockerImages = dockerImages;
    c.dockerImages.removeDuplicates();
    c.createdAt = m_clock.nowMs();
    QString error;
    if (!m_repo.insert(c, error)) {   // recorded before anything is acted on
        refused.error = error;
        return done(refused);
    }
    emit checkpointsChanged(sandboxId);
    if (started)
        started(c);
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
    if (w.isManaged())
        kept << QStringLiteral("the workspace, copied on this computer");
    if (w.mode == WorkspaceMode::Clone) {
        kept << QStringLiteral("the clone's git state: its commits and branches, HEAD, staged and unstaged changes and untracked "
                               "files, kept on this computer as a git bundle (%1 is only read)").arg(w.hostPath);
        notKept << QStringLiteral("files git ignores in the clone (build output, dependencies) are not in the checkpoint's git state");
    }
    if (!c.dockerImages.isEmpty())
        kept << QStringLiteral("the Docker images %1, saved with docker save into the checkpoint's disk and loaded into the sandbox "
                               "a restore or fork makes").arg(c.dockerImages.join(QStringLiteral(", ")));
    const std::pair<QStringList, QStringList> notes{kept, notKept};   // what it holds, what it does not
    const QString source = w.isManaged() ? w.hostPath : QString();
    if (c.cloneState.isEmpty() && c.dockerImages.isEmpty())
        return saveVm(c, notes, source, keepHeld, 0, std::move(done));
    // In the VM while it runs (which wakes a sleeping one): the named images into HOME, then a clone's
    // git state; then the VM's disk.
    RunningSandbox running;
    QString resolveError;
    if (!m_sandboxes.resolveRunning(sandboxId, running, resolveError))
        return fail(c, resolveError, false, done);
    QPointer<CheckpointService> self(this);
    const auto saveInVm = [self, c, notes, source, keepHeld, done, running] {
        if (!self)
            return;
        if (c.cloneState.isEmpty())
            return self->saveVm(c, notes, source, keepHeld, 0, done);
        self->m_cloneWork->save(running, c.cloneState, [self, c, notes, keepHeld, done](bool ok, qint64 bytes, const QString &saveError) {
            if (!self)
                return;
            if (!ok)
                return self->fail(c, self->m_sandboxes.publicText(saveError), false, done);
            self->saveVm(c, notes, QString(), keepHeld, bytes, done);
        });
    };
    if (c.dockerImages.isEmpty())
        return saveInVm();
    m_docker->save(running.runtimeName, c.id, c.dockerImages, [self, c, done, saveInVm](bool ok, qint64, const QString &saveError) {
        if (!self)
            return;
        if (!ok)
            return self->fail(c, self->m_sandboxes.publicText(saveError), false, done);
        saveInVm();
    });
}

QString CheckpointService::baseTemplateOf(const QString &sandboxId) const
{
    const std::optional<SandboxView> v = m_sandboxes.get(sandboxId);
    if (v && !v->record.templateRef.isEmpty())
        return v->record.templateRef;
    // Made by an older version: a fork's base is its checkpoint's template; other bases are unknown.
    if (const auto fork = m_repo.forkOf(sandboxId))
        if (const auto from = m_repo.find(fork->checkpointId))
            return from->templateRef;
    return {};
}

QString CheckpointService::baseGoneText(const QString &sandboxId, const QString &base) const
{
    QString text = QStringLiteral("no checkpoint was made: sandbox %1 was made from the template %2, which sbx no longer has "
                                  "(`sbx template ls` does not list it), and sbx cannot save a sandbox whose base image is gone. "
                                  "The sandbox is intact and works as before.").arg(sandboxId, base);
    if (base == m_config.templateRef())
        text += QStringLiteral(" Run `chat2sbx setup` to make the template again, then checkpoint it.");
    return text;
}

void CheckpointService::saveVm(const Checkpoint &c, const std::pair<QStringList, QStringList> &notes, const QString &source,
                               bool keepHeld, qint64 cloneBytes, Done done)
{
    QPointer<CheckpointService> self(this);
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
    const auto save = [self, c, done, notes, source, keepHeld, cloneBytes](const QString &runtime) {
        self->m_sbx.templateSave(runtime, c.templateRef, [self, c, done, notes, source, keepHeld, cloneBytes](const SbxResult &saved) {
            if (!self)
                return;
            if (!saved.ok)
                return self->fail(c, self->m_sandboxes.publicText(saved.error), true, done);
            const auto finish = [self, c, done, notes, keepHeld](qint64 size) {
                QString finishError;
                if (self->m_repo.finish(c.id, CheckpointState::Ready, size, {}, self->m_clock.nowMs(), finishError) != 1)
                    return self->fail(c, finishError.isEmpty() ? QStringLiteral("the checkpoint was removed meanwhile") : finishError,
                                      true, done);
                if (!keepHeld)
                    self->m_sandboxes.release(c.sandboxId);
                emit self->checkpointsChanged(c.sandboxId);
                Outcome o;
                o.ok = true;
                o.checkpoint = *self->m_repo.find(c.id);
                o.kept = notes.first;
                o.notes = notes.second;
                QSet<QString> keep{c.id};
                for (auto it = self->m_inUse.cbegin(); it != self->m_inUse.cend(); ++it)
                    keep.insert(it.key());
                o.evicted = self->m_removal->evictOverBudget(keep, o.overBudget);
                done(o);
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
            self->m_sbx.templateSizes([partDone, ref = c.templateRef](const SbxResult &listed, const QHash<QString, qint64> &sizes) {
                const qint64 bytes = listed.ok ? sizes.value(ref, -1) : -1;
                if (bytes < 0)
                    qCWarning(lcCheckpoint).noquote() << "the size of" << ref << "is unknown (sbx template ls):"
                                                      << (listed.ok ? QStringLiteral("not listed with a size") : listed.error);
                partDone(qMax<qint64>(bytes, 0), QString());
            });
            if (!c.dockerImages.isEmpty())
                self->dropDockerArchive(c, true, [partDone] { partDone(0, QString()); });
            if (source.isEmpty())
                return partDone(0, QString());
            self->m_copy->copy(source, c.workspaceCopy, [partDone](bool copied, qint64 size, const QString &copyError) {
                partDone(copied ? size : 0, copied ? QString() : copyError);
            });
        });
    };
    m_sandboxes.holdStopped(c.sandboxId, kHeldFor, [ready, bothDone, save](bool ok, const QString &holdError, const QString &runtime) {
        ready->held = ok;
        ready->holdError = holdError;
        ready->runtime = runtime;
        bothDone(save);
    });
    m_sbx.templateList([ready, bothDone, save](const SbxResult &listed, const QStringList &templates) {
        ready->listed = listed.ok;
        ready->templates = templates;
        bothDone(save);
    });
}

void CheckpointService::dropDockerArchive(const Checkpoint &c, bool held, std::function<void()> then)
{
    // The VM runs for it: a held sandbox is woken for its holder, a free one only when it runs already.
    RunningSandbox running;
    QString error;
    const std::optional<SandboxView> view = m_sandboxes.get(c.sandboxId);
    const bool reachable = held ? m_sandboxes.resolveHeld(c.sandboxId, running, error)
                                : view && view->record.state == SandboxState::Running
                                      && m_sandboxes.resolveRunning(c.sandboxId, running, error);
    // A sleeping sandbox no job holds (a checkpoint a stop of chat2sbx interrupted): `sbx exec`
    // starts its VM for the drop (it stops again by itself), or every later checkpoint would carry
    // the archive.
    const bool asleep = !held && view && view->record.state == SandboxState::Stopped && !view->record.isUnreachable()
                        && m_sandboxes.heldFor(c.sandboxId).isEmpty();
    if (!reachable && asleep) {
        qCInfo(lcCheckpoint).noquote() << "removing the Docker images' archive of" << c.id << "from sleeping sandbox" << c.sandboxId;
        running.runtimeName = view->record.runtimeName;
    } else if (!reachable) {
        qCWarning(lcCheckpoint).noquote() << "the Docker images' archive of" << c.id << "stays in its sandbox:"
                                          << (error.isEmpty() ? QStringLiteral("the sandbox is not running") : error);
        return then();
    }
    m_docker->drop(running.runtimeName, c.id, [id = c.id, then](bool dropped, const QString &dropError) {
        if (!dropped)
            qCWarning(lcCheckpoint).noquote() << "the Docker images' archive of" << id << "stays in its sandbox:" << dropError;
        then();
    });
}

void CheckpointService::fillNewVm(const RunningSandbox &vm, const Checkpoint &c, std::function<void(bool, const QString &)> done)
{
    QPointer<CheckpointService> self(this);
    const auto loadImages = [self, vm, c, done](bool ok, const QString &error) {
        if (!self)
            return done(false, QStringLiteral("chat2sbx is stopping"));
        if (!ok || c.dockerImages.isEmpty())
            return done(ok, error);
        self->m_docker->load(vm.runtimeName, c.id, [self, done](bool loaded, const QString &loadError) {
            done(loaded, loaded || !self ? loadError : self->m_sandboxes.publicText(loadError));
        });
    };
    if (c.cloneState.isEmpty())
        return loadImages(true, QString());
    if (!m_cloneWork)
        return done(false, QStringLiteral("clone sandboxes cannot be restored or forked here"));
    m_cloneWork->putBack(vm, c.cloneState, [self, loadImages](bool ok, const QString &error) {
        loadImages(ok, ok || !self ? error : self->m_sandboxes.publicText(error));
    });
}

void CheckpointService::reconcile()
{
    for (const Checkpoint &c : m_repo.inState(CheckpointState::Saving)) {
        qCInfo(lcCheckpoint).noquote() << "checkpoint" << c.id << "of" << c.sandboxId
                                       << "was interrupted by a stop of chat2sbx: removed";
        fail(c, QStringLiteral("chat2sbx stopped while the checkpoint was being saved"), false, [](const Outcome &) {});
    }
    m_restorer->finishInterrupted();
    m_removal->sweep();   // a sandbox destroyed while chat2sbx was down (by the CLI) leaves its checkpoints
}

} // namespace chat2sbx
