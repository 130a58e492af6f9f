#include "sandbox/changes/SandboxMover.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/bash/BashSessions.h"
#include "sandbox/changes/CloneCheckpointWork.h"
#include "sandbox/lifecycle/CloneSeeder.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"
#include "sandbox/sbx/InVmScript.h"
#include "sandbox/sbx/SbxDriver.h"

#include <QDir>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcMove, "chat2sbx.move")

const QString kIncoming = QStringLiteral("/home/agent/.chat2sbx-incoming-workspace");
QString heldWhy(bool toCloud)
{
    return toCloud ? QStringLiteral("being moved to Docker's cloud") : QStringLiteral("being moved to this computer");
}

// The destination `sbx move` made from `prefix` (the cloud adds a suffix; a local name gets one when taken).
QString destinationIn(const QStringList &names, const QString &prefix)
{
    for (const QString &n : names)
        if (n == prefix || n.startsWith(prefix + QLatin1Char('-')))
            return n;
    return {};
}

QString sizeOf(const SbxCloudInfo &row)
{
    for (const SbxCloudSize &s : sbxCloudSizes())
        if ((row.memoryMib > 0 && s.memoryMib == row.memoryMib) || (row.memoryMib <= 0 && row.cpus > 0 && s.cpus == row.cpus))
            return s.name;
    return {};
}

} // namespace

SandboxMover::SandboxMover(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx,
                           RuntimeAttacher &attacher, Clock &clock, BashSessions *sessions, QObject *parent)
    : QObject(parent), m_config(config), m_moves(db), m_records(db), m_sandboxes(sandboxes), m_sbx(sbx), m_attacher(attacher),
      m_clock(clock), m_sessions(sessions)
{
}

void SandboxMover::move(const MoveRequest &request, MoveDone done)
{
    const std::optional<SandboxView> view = m_sandboxes.get(request.sandboxId);
    MoveOutcome refused;
    refused.error = refusal(request, view);
    if (refused.error.isEmpty() && !request.endRunningCommands && m_sessions && m_sessions->hasRunning(request.sandboxId))
        refused.error = QStringLiteral("commands still run in sandbox %1 (bash_list shows them); a move stops the sandbox and ends "
                                       "them: wait for them, or call again with end_running_commands: true").arg(request.sandboxId);
    if (!refused.error.isEmpty()) {
        QTimer::singleShot(0, this, [done, refused] { done(refused); });
        return;
    }
    begin(request, *view, std::move(done));
}

void SandboxMover::setCarried(Job &job, const std::optional<SandboxView> &view)
{
    // Only a move to the cloud of a workspace that is not in the VM already carries anything itself.
    if (!job.move.toCloud || job.move.sourceWorkspaceInVm || !view || !view->workspace)
        return;
    if (view->workspace->isManaged())
        job.hostWorkspace = view->workspace->hostPath;
    job.seedClone = view->workspace->mode == WorkspaceMode::Clone;
}

void SandboxMover::giveUp(const QString &id, const QString &error, bool held)
{
    if (held)
        m_sandboxes.release(id);
    Job failed = m_jobs.take(id);
    MoveOutcome o;
    o.error = error;
    failed.done(o);
}

void SandboxMover::setCloneWork(CloneCheckpointWork *work, CloneSeeder *seeder)
{
    m_cloneWork = work;
    m_seeder = seeder;
}

QString SandboxMover::movingTo(const QString &sandboxId) const
{
    const auto it = m_jobs.constFind(sandboxId);
    if (it == m_jobs.cend())
        return {};
    return it->move.toCloud ? QStringLiteral("cloud") : QStringLiteral("local");
}

QString SandboxMover::stateDir(const QString &sandboxId) const
{
    return m_config.dataRoot + QStringLiteral("/moves/") + sandboxId;
}

void SandboxMover::begin(const MoveRequest &request, const SandboxView &view, MoveDone done)
{
    const SandboxRecord &record = view.record;
    const QString id = record.id;
    Job job;
    job.move.sandboxId = id;
    job.move.toCloud = request.toCloud;
    job.move.sourceRuntime = record.runtimeName;
    job.move.destPrefix = (request.toCloud ? kCloudRuntimePrefix : kRuntimePrefix) + randomHex(6);
    job.move.ttlSeconds = request.toCloud ? (request.ttlSeconds > 0 ? request.ttlSeconds : m_config.cloudDefaultTtlSeconds) : 0;
    job.move.sourceWorkspaceInVm = record.workspaceInVm;
    job.move.sourceCloudSize = record.cloudSize;
    job.move.startedAt = m_clock.nowMs();
    job.startedAtMs = job.move.startedAt;
    setCarried(job, view);
    job.done = std::move(done);
    m_jobs.insert(id, job);
    QPointer<SandboxMover> self(this);
    // A local source is stopped by us (sbx would stop it to capture it anyway); a cloud source keeps
    // running until its destination exists, as sbx moves it.
    const auto held = [self, id](bool ok, const QString &error, const QString &) {
        if (!self)
            return;
        if (!ok)
            return self->giveUp(id, error, false);
        const auto recordMove = [self, id] {
            QString dbError;
            if (!self->m_moves.begin(self->m_jobs.value(id).move, dbError))
                return self->giveUp(id, QStringLiteral("nothing was changed: %1").arg(dbError), true);
            emit self->m_sandboxes.sandboxesChanged();
            self->runMove(id);
        };
        if (!self->m_jobs.value(id).seedClone)
            return recordMove();
        // The clone's work (commits, branches, index, working tree) is saved on this computer before
        // anything moves: `sbx move` leaves the clone behind.
        RunningSandbox running;
        QString why;
        if (!self->m_sandboxes.resolveHeld(id, running, why))
            return self->giveUp(id, QStringLiteral("nothing was changed: the clone's work could not be reached to save it (%1)").arg(why),
                                true);
        const QString dir = self->stateDir(id);
        QDir(dir).removeRecursively();
        self->m_cloneWork->save(running, dir, [self, id, recordMove](bool saved, qint64, const QString &saveError) {
            if (!self || !self->m_jobs.contains(id))
                return;
            if (!saved)
                return self->giveUp(id, QStringLiteral("nothing was changed: the clone's work could not be saved before the move (%1)")
                                            .arg(self->m_sandboxes.publicText(saveError)),
                                    true);
            recordMove();
        });
    };
    if (request.toCloud)
        m_sandboxes.holdStopped(id, heldWhy(true), held);
    else
        m_sandboxes.holdMarkedStopped(id, heldWhy(false), held);
}

void SandboxMover::runMove(const QString &id)
{
    const SandboxMove &m = m_jobs[id].move;
    qCInfo(lcMove).noquote() << "moving" << id << (m.toCloud ? "to Docker's cloud" : "to this computer");
    SbxMoveSpec spec;
    spec.source = m.sourceRuntime;
    spec.toCloud = m.toCloud;
    spec.namePrefix = m.destPrefix;
    if (m.toCloud) {
        spec.ttlSeconds = m.ttlSeconds;
        spec.onTimeout = QStringLiteral("stop");   // its files are kept when the time ends
    }
    QPointer<SandboxMover> self(this);
    m_sbx.move(spec, [self, id](const SbxResult &r, const QStringList &warnings) {
        if (!self || !self->m_jobs.contains(id))
            return;
        self->m_jobs[id].move.warnings = warnings;
        self->findDestination(id, r.ok ? QString() : r.error);
    });
}

void SandboxMover::findDestination(const QString &id, const QString &sbxError)
{
    QPointer<SandboxMover> self(this);
    const auto found = [self, id, sbxError](bool listed, const QString &listError, const QStringList &names) {
        if (!self || !self->m_jobs.contains(id))
            return;
        Job &job = self->m_jobs[id];
        if (!listed) {
            // Neither made nor known not to be: the sandbox stays held and sbx is asked again.
            if (job.done) {
                MoveOutcome o;
                o.error = QStringLiteral("%1; whether the destination was made is not known yet (%2): the sandbox stays held while "
                                         "chat2sbx asks sbx again every %3 s, and sandbox_get shows when it is done")
                              .arg(sbxError.isEmpty() ? QStringLiteral("sbx moved the sandbox") : self->m_sandboxes.publicText(sbxError),
                                   self->m_sandboxes.publicText(listError))
                              .arg(kRetryMs / 1000);
                const MoveDone answer = std::move(job.done);
                job.done = nullptr;
                answer(o);
            }
            QTimer::singleShot(kRetryMs, self, [self, id, sbxError] {
                if (self && self->m_jobs.contains(id))
                    self->findDestination(id, sbxError);
            });
            return;
        }
        const QString dest = destinationIn(names, job.move.destPrefix);
        if (dest.isEmpty())
            return self->undoBeforeSwitch(id, sbxError.isEmpty() ? QStringLiteral("sbx move answered but no sandbox named %1… was "
                                                                                  "made").arg(job.move.destPrefix)
                                                                : sbxError);
        if (!sbxError.isEmpty()) {
            qCWarning(lcMove).noquote() << "sbx move of" << id << "failed but made" << dest << "; going on with it:" << sbxError;
            job.sbxFailure = self->m_sandboxes.publicText(sbxError);
        }
        QString error;
        if (!self->m_moves.markCreated(id, dest, job.move.warnings, error))
            qCWarning(lcMove).noquote() << error;   // the start-up finds it by its prefix again
        job.move.destRuntime = dest;
        job.move.step = QStringLiteral("created");
        self->carryWorkspace(id);
    };
    if (m_jobs[id].move.toCloud)
        m_sbx.cloudList([found](const SbxResult &r, const QList<SbxCloudInfo> &rows) {
            QStringList names;
            for (const SbxCloudInfo &row : rows)
                names << row.name;
            found(r.ok, r.error, names);
        });
    else
        m_sbx.list([found](const SbxResult &r, const QList<SbxRuntimeInfo> &rows) {
            QStringList names;
            for (const SbxRuntimeInfo &row : rows)
                names << row.name;
            // An empty `sbx ls` is no proof that nothing was made (sbx-contract: it happens in the field).
            found(r.ok && !names.isEmpty(), r.ok ? QStringLiteral("sbx ls listed nothing") : r.error, names);
        });
}

void SandboxMover::carryWorkspace(const QString &id)
{
    const Job &job = m_jobs[id];
    if (job.hostWorkspace.isEmpty())
        return switchToDestination(id);
    const QString dest = job.move.destRuntime;
    const QString host = job.hostWorkspace;
    QPointer<SandboxMover> self(this);
    // vm/moved-workspace.sh clear|place
    const auto inVm = [self, dest](const char *op, SbxDriver::Callback cb) {
        SbxExecSpec spec;
        spec.runtimeName = dest;
        spec.cloud = true;
        spec.command = {QStringLiteral("bash"), QStringLiteral("-c"), inVmScript(QStringLiteral("moved-workspace.sh")),
                        QStringLiteral("chat2sbx-move"), QString::fromLatin1(op)};
        self->m_sbx.exec(spec, std::move(cb));
    };
    // Cleared first: a copy a crash interrupted is made again whole, never inside the old one.
    inVm("clear", [self, id, dest, host, inVm](const SbxResult &cleared) {
        if (!self || !self->m_jobs.contains(id))
            return;
        if (!cleared.ok)
            return self->switchBack(id, QStringLiteral("the cloud sandbox did not answer before the workspace went in: %1").arg(cleared.error));
        self->m_sbx.cloudCopy(host, dest + QLatin1Char(':') + kIncoming, [self, id, inVm](const SbxResult &copied) {
            if (!self || !self->m_jobs.contains(id))
                return;
            if (!copied.ok)
                return self->switchBack(id, QStringLiteral("copying the workspace into the cloud failed: %1").arg(copied.error));
            inVm("place", [self, id](const SbxResult &placed) {
                if (!self || !self->m_jobs.contains(id))
                    return;
                if (!placed.ok)
                    return self->switchBack(id, QStringLiteral("the workspace could not be put at ~/workspace: %1").arg(placed.error));
                self->switchToDestination(id);
            });
        });
    });
}

void SandboxMover::switchToDestination(const QString &id)
{
    Job &job = m_jobs[id];
    const std::optional<SandboxRecord> r = m_records.find(id);
    if (!r)
        return finish(id, QStringLiteral("sandbox %1 is gone").arg(id));
    SandboxMoveSwitch to;
    to.runtimeName = job.move.destRuntime;
    to.nowMs = m_clock.nowMs();
    if (!job.move.toCloud) {
        to.placement = QStringLiteral("local");
        to.workspaceInVm = true;   // its files came along in the VM; there is no mount of this computer
        QString error;
        if (!m_moves.switchRecord(id, to, error))
            return switchBack(id, error);
        job.move.step = QStringLiteral("switched");
        return verify(id);
    }
    to.placement = QStringLiteral("cloud");
    bool tooLarge = false;
    to.cloudSize = cloudSizeForMemory(r->memory, tooLarge);   // until the cloud's list says it
    QPointer<SandboxMover> self(this);
    m_sbx.cloudList([self, id, to](const SbxResult &lr, const QList<SbxCloudInfo> &rows) mutable {
        if (!self || !self->m_jobs.contains(id))
            return;
        Job &j = self->m_jobs[id];
        to.expiresAt = to.nowMs + j.move.ttlSeconds * 1000;
        to.expiresCeilingAt = to.nowMs + kSbxCloudMaxTtlSeconds * 1000;
        if (lr.ok)
            for (const SbxCloudInfo &row : rows)
                if (row.name == j.move.destRuntime) {
                    if (const QString size = sizeOf(row); !size.isEmpty())
                        to.cloudSize = size;
                    if (row.expiresAtMs > 0)
                        to.expiresAt = row.expiresAtMs;
                }
        QString error;
        if (!self->m_moves.switchRecord(id, to, error))
            return self->switchBack(id, error);
        j.move.step = QStringLiteral("switched");
        self->verify(id);
    });
}

void SandboxMover::verify(const QString &id)
{
    RunningSandbox running;
    QString error;
    if (!m_sandboxes.resolveHeld(id, running, error))
        return switchBack(id, error);
    QPointer<SandboxMover> self(this);
    m_attacher.attach(running, [self, id, running](bool ok, const QString &attachError) {
        if (!self || !self->m_jobs.contains(id))
            return;
        if (!ok) {
            // A destination a failed `sbx move` left: why it failed says more than the silence after.
            const QString sbxFailure = self->m_jobs.value(id).sbxFailure;
            return self->switchBack(id, QStringLiteral("the moved sandbox did not answer through its control channel: %1%2")
                                            .arg(attachError, sbxFailure.isEmpty() ? QString()
                                                                                   : QStringLiteral(" (%1)").arg(sbxFailure)));
        }
        if (self->m_jobs.value(id).seedClone)
            return self->seedClone(id, running);
        self->removeSource(id);
    });
}

void SandboxMover::seedClone(const QString &id, const RunningSandbox &running)
{
    const std::optional<SandboxView> view = m_sandboxes.get(id);
    const QString dir = stateDir(id);
    if (!view || !view->workspace || !m_seeder || !m_cloneWork || !CloneCheckpointWork::holdsState(dir))
        return switchBack(id, QStringLiteral("the clone's saved work is missing from this computer"));
    QPointer<SandboxMover> self(this);
    // The approved repository's commit first (as a cloud clone is made), then the work on top of it.
    m_seeder->seed(running, *view->workspace, [self, id, running, dir](bool seeded, const QString &seedError) {
        if (!self || !self->m_jobs.contains(id))
            return;
        if (!seeded)
            return self->switchBack(id, QStringLiteral("the clone could not be made in the cloud: %1").arg(seedError));
        self->m_cloneWork->putBack(running, dir, [self, id](bool back, const QString &backError) {
            if (!self || !self->m_jobs.contains(id))
                return;
            if (!back)
                return self->switchBack(id, QStringLiteral("the clone's work could not be put back in the cloud: %1").arg(backError));
            self->removeSource(id);
        });
    });
}

void SandboxMover::removeSource(const QString &id)
{
    const QString source = m_jobs[id].move.sourceRuntime;
    QPointer<SandboxMover> self(this);
    m_sandboxes.removeUnusedRuntime(source, [self, id, source](bool ok, const QString &error) {
        if (!self || !self->m_jobs.contains(id))
            return;
        if (!ok) {
            // The sandbox answers where it moved and is used there from now on: the next start removes
            // the old copy and does nothing else (no check, no clone put back over newer work).
            qCWarning(lcMove).noquote() << "the source of" << id << "was not removed (tried again):" << error;
            QString dbError;
            if (!self->m_moves.markSourceLeft(id, dbError))
                qCWarning(lcMove).noquote() << dbError;
            self->m_jobs[id].move.warnings << QStringLiteral("the sandbox's old copy could not be removed yet (%1): chat2sbx tries "
                                                             "again while it runs, and at its next start")
                                                  .arg(self->m_sandboxes.publicText(error));
            self->finish(id, QString(), true);
            return self->retryLeftSource(id, 1);
        }
        self->finish(id, QString());
    });
}

void SandboxMover::undoBeforeSwitch(const QString &id, const QString &error)
{
    qCWarning(lcMove).noquote() << "the move of" << id << "made nothing:" << error;
    QDir(stateDir(id)).removeRecursively();
    QString dbError;
    if (!m_moves.end(id, dbError))
        qCWarning(lcMove).noquote() << dbError;
    m_sandboxes.release(id);
    Job job = m_jobs.take(id);
    emit m_sandboxes.sandboxesChanged();
    if (job.done) {
        MoveOutcome o;
        o.error = QStringLiteral("the move failed and nothing was changed: %1. The sandbox stays %2 and starts at its next tool call")
                      .arg(m_sandboxes.publicText(error),
                           job.move.toCloud ? QStringLiteral("on this computer") : QStringLiteral("in Docker's cloud"));
        o.warnings = job.move.warnings;
        job.done(o);
    }
}

void SandboxMover::switchBack(const QString &id, const QString &error)
{
    Job &job = m_jobs[id];
    qCWarning(lcMove).noquote() << "the move of" << id << "is undone:" << error;
    if (job.move.step == QLatin1String("switched")) {
        SandboxMoveSwitch back;
        back.runtimeName = job.move.sourceRuntime;
        back.placement = job.move.toCloud ? QStringLiteral("local") : QStringLiteral("cloud");
        back.cloudSize = job.move.toCloud ? QString() : job.move.sourceCloudSize;
        back.workspaceInVm = job.move.sourceWorkspaceInVm;
        back.nowMs = m_clock.nowMs();
        QString dbError;
        if (!m_moves.switchRecord(id, back, dbError, true)) {
            qCWarning(lcMove).noquote() << dbError;
            return finish(id, QStringLiteral("%1; switching back failed too: %2").arg(error, dbError));
        }
        job.move.step = QStringLiteral("created");
    }
    const QString dest = job.move.destRuntime;
    QPointer<SandboxMover> self(this);
    m_sandboxes.removeUnusedRuntime(dest, [self, id, error](bool, const QString &rmError) {
        if (!self)
            return;
        if (!rmError.isEmpty())
            qCWarning(lcMove).noquote() << "the destination of the undone move of" << id << "was not removed:" << rmError;
        self->undoBeforeSwitch(id, error);
    });
}

void SandboxMover::finish(const QString &id, const QString &error, bool rowStays)
{
    Job job = m_jobs.take(id);
    if (error.isEmpty()) {
        QString dbError;
        if (!rowStays && !m_moves.end(id, dbError))
            qCWarning(lcMove).noquote() << dbError;
        QDir(stateDir(id)).removeRecursively();
    }
    m_sandboxes.release(id);
    emit m_sandboxes.sandboxesChanged();
    emit moved(id);
    if (!job.done)
        return;
    MoveOutcome o;
    o.ok = error.isEmpty();
    o.error = m_sandboxes.publicText(error);
    o.placement = job.move.toCloud == o.ok ? QStringLiteral("cloud") : QStringLiteral("local");
    o.tookMs = m_clock.nowMs() - job.startedAtMs;
    o.warnings = job.move.warnings;
    if (o.ok) {
        o.carried << QStringLiteral("the sandbox's filesystem: installed packages, HOME, files written in the VM");
        if (job.seedClone)
            o.carried << QStringLiteral("the clone at ~/workspace: the repository's commit, then the sandbox's commits, branches, "
                                        "staged and unstaged changes and untracked files (ignored files stay behind); "
                                        "export_changes brings work home as a branch");
        if (!job.hostWorkspace.isEmpty())
            o.carried << QStringLiteral("the workspace folder of this computer, copied to ~/workspace in the cloud sandbox");
        else if (!job.move.toCloud)
            o.carried << QStringLiteral("the workspace at ~/workspace inside the sandbox (a move gives a local sandbox no folder of "
                                        "this computer)");
        o.leftBehind << QStringLiteral("running processes and memory: the sandbox started afresh (bash sessions ended)")
                     << QStringLiteral("published ports: publish them again with sandbox_expose")
                     << QStringLiteral("network rules added for this sandbox: approve the hosts again when a command needs them")
                     << QStringLiteral("managed secrets: the destination uses its own store (sign in again if a tool asks)");
    }
    job.done(o);
}

void SandboxMover::retryLeftSource(const QString &id, int attempt)
{
    // At sbx's recheck interval, doubling up to ten minutes: the sandbox is in use where it went, so
    // it is not held; only the old copy is removed, then the row.
    const qint64 delayMs = qMin<qint64>(qint64(qMax(1, m_config.sbxRecheckSeconds)) * 1000 << qMin(attempt - 1, 10), 600000);
    QPointer<SandboxMover> self(this);
    QTimer::singleShot(std::chrono::milliseconds(delayMs), this, [self, id, attempt] {
        if (!self || self->m_jobs.contains(id))
            return;
        const std::optional<SandboxMove> move = self->m_moves.find(id);
        if (!move || move->step != QLatin1String("source_left"))
            return;
        self->m_sandboxes.removeUnusedRuntime(move->sourceRuntime, [self, id, attempt](bool ok, const QString &error) {
            if (!self || self->m_jobs.contains(id))
                return;
            if (!ok)
                return self->retryLeftSource(id, attempt + 1);
            QString dbError;
            if (!self->m_moves.end(id, dbError))
                qCWarning(lcMove).noquote() << dbError;
            Q_UNUSED(error)
            qCInfo(lcMove).noquote() << "the old copy of moved sandbox" << id << "is removed, at try" << attempt + 1;
            emit self->m_sandboxes.sandboxesChanged();
        });
    });
}

void SandboxMover::finishInterrupted()
{
    for (const SandboxMove &m : m_moves.pending())
        resume(m);
}

void SandboxMover::resume(const SandboxMove &move)
{
    const QString id = move.sandboxId;
    const std::optional<SandboxRecord> r = m_records.find(id);
    QString error;
    if (!r || r->state == SandboxState::Destroyed || r->state == SandboxState::Failed) {
        m_moves.end(id, error);
        return;
    }
    if (!m_sandboxes.holdAsIs(id, heldWhy(move.toCloud)))
        return;
    qCInfo(lcMove).noquote() << "the move of" << id << "was interrupted by a stop of chat2sbx at step" << move.step << ": finishing it";
    Job job;
    job.move = move;
    job.startedAtMs = move.startedAt;
    setCarried(job, m_sandboxes.get(id));
    m_jobs.insert(id, job);
    // Held now, before reconciliation reads `sbx ls`; the steps go on once sbx was asked.
    QPointer<SandboxMover> self(this);
    m_sandboxes.ensureAvailable([self, id, step = move.step](bool, const QString &) {
        if (!self || !self->m_jobs.contains(id))
            return;
        if (step == QLatin1String("moving"))
            self->findDestination(id, QStringLiteral("chat2sbx stopped during `sbx move`"));
        else if (step == QLatin1String("created"))
            self->carryWorkspace(id);
        else if (step == QLatin1String("source_left"))
            self->removeSource(id);
        else
            self->verify(id);
    });
}

} // namespace chat2sbx
