#include "sandbox/changes/CheckpointService.h"

#include "config/Config.h"
#include "sandbox/changes/CheckpointForker.h"
#include "sandbox/changes/CheckpointJobs.h"
#include "sandbox/changes/CheckpointRemoval.h"
#include "sandbox/changes/CheckpointRestorer.h"
#include "sandbox/changes/CheckpointTaker.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

namespace {
Q_LOGGING_CATEGORY(lcCheckpoint, "chat2sbx.checkpoint")
} // namespace

CheckpointService::CheckpointService(const Config &config, Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock,
                                     CloneCheckpointWork *cloneWork, QObject *parent)
    : QObject(parent), m_jobs(new CheckpointJobs(config, db, sandboxes, sbx, clock, cloneWork, this)),
      m_removal(new CheckpointRemoval(config, db, sbx, this)), m_taker(new CheckpointTaker(*m_jobs, *m_removal, this)),
      m_restorer(new CheckpointRestorer(*m_jobs, *m_taker, this)), m_forker(new CheckpointForker(*m_jobs, *m_taker, this))
{
    connect(m_jobs, &CheckpointJobs::checkpointsChanged, this, &CheckpointService::checkpointsChanged);
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

void CheckpointService::create(const CheckpointRequest &request, CheckpointStarted started, CheckpointDone done)
{
    m_taker->take(request, std::move(started), std::move(done));
}

void CheckpointService::restore(const RestoreRequest &request, RestoreStarted started, RestoreDone done)
{
    m_restorer->restore(request, std::move(started), std::move(done));
}

void CheckpointService::fork(const ForkRequest &request, CheckpointStarted started, ForkDone done)
{
    m_forker->fork(request, std::move(started), std::move(done));
}

void CheckpointService::remove(const QString &checkpointId, RemoveDone done)
{
    m_removal->removeAsked(checkpointId, m_jobs->inUse(), std::move(done));
}

bool CheckpointService::setPinned(const QString &checkpointId, bool pinned, QString &error)
{
    return m_jobs->setPinned(checkpointId, pinned, error);
}

std::optional<Checkpoint> CheckpointService::find(const QString &checkpointId) const
{
    return m_jobs->repo().find(checkpointId);
}

QList<Checkpoint> CheckpointService::list(const QString &sandboxId) const
{
    return m_jobs->repo().listFor(sandboxId);
}

QHash<QString, QList<Checkpoint>> CheckpointService::listLive() const
{
    QHash<QString, QList<Checkpoint>> out;
    for (const Checkpoint &c : m_jobs->repo().listLive())
        out[c.sandboxId].append(c);
    return out;
}

std::optional<CheckpointRepository::PendingRestore> CheckpointService::pendingRestore(const QString &sandboxId) const
{
    return m_jobs->repo().pendingRestore(sandboxId);
}

QHash<QString, CheckpointRepository::PendingRestore> CheckpointService::pendingRestores() const
{
    QHash<QString, CheckpointRepository::PendingRestore> out;
    for (const CheckpointRepository::PendingRestore &p : m_jobs->repo().pendingRestores())
        out.insert(p.sandboxId, p);
    return out;
}

std::optional<CheckpointRepository::Fork> CheckpointService::forkOf(const QString &sandboxId) const
{
    return m_jobs->repo().forkOf(sandboxId);
}

QHash<QString, CheckpointRepository::Fork> CheckpointService::allForks() const
{
    return m_jobs->repo().allForks();
}

void CheckpointService::checkpointBeforeExpiry(const QString &sandboxId, std::function<void(const QString &)> proceed)
{
    const std::optional<SandboxView> view = m_jobs->sandboxes().get(sandboxId);
    if (!view || !view->workspace || !view->workspace->isManaged())
        return proceed(QString());   // a host folder keeps its own work (a clone's comes home as a branch)
    CheckpointRequest request;
    request.sandboxId = sandboxId;
    request.label = QStringLiteral("before idle expiry");
    request.running = RunningCommands::MayEnd;   // the sandbox is being removed anyway
    QPointer<CheckpointService> self(this);
    create(request, {}, [self, sandboxId, proceed](const CheckpointOutcome &o) {
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

void CheckpointService::reconcile()
{
    m_taker->failInterrupted();
    m_restorer->finishInterrupted();
    m_removal->sweep();   // a sandbox destroyed while chat2sbx was down (by the CLI) leaves its checkpoints
}

} // namespace chat2sbx
