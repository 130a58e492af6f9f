#include "sandbox/lifecycle/SandboxService.h"

#include "sandbox/lifecycle/CloudTtlKeeper.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/lifecycle/Redaction.h"
#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxIdleExpiry.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/lifecycle/SandboxSleeper.h"
#include "sandbox/lifecycle/SandboxWaker.h"
#include "sandbox/lifecycle/UnreachableDiagnosis.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/Database.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QTimer>

#include <memory>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSandbox, "chat2sbx.sandbox")

SandboxService::SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx,
                               Clock &clock, QObject *parent)
    : QObject(parent), m_ops(std::make_unique<SandboxRuntimeOps>(config, db, workspaces, sbx, clock)),
      m_ports(std::make_unique<PortExposure>(db, *this, sbx)),
      m_reconciler(std::make_unique<SandboxReconciler>(*m_ops)),
      m_creator(std::make_unique<SandboxCreator>(*m_ops, *m_reconciler)),
      m_destroyer(std::make_unique<SandboxDestroyer>(*m_ops, *m_reconciler)),
      m_idle(std::make_unique<SandboxIdleExpiry>(*m_ops, *m_reconciler, *m_destroyer)),
      m_waker(std::make_unique<SandboxWaker>(*m_ops)),
      m_sleeper(std::make_unique<SandboxSleeper>(*m_ops, *m_creator, *m_destroyer)),
      m_cloudTtl(std::make_unique<CloudTtlKeeper>(*m_ops))
{
    m_reconciler->setJobs(*m_creator, *m_destroyer, *m_idle);
    connect(m_ops.get(), &SandboxRuntimeOps::sandboxesChanged, this, &SandboxService::sandboxesChanged);
    connect(m_ports.get(), &PortExposure::portsChanged, this, &SandboxService::sandboxesChanged);
    connect(m_creator.get(), &SandboxCreator::createFinished, this, &SandboxService::createFinished);
    connect(m_creator.get(), &SandboxCreator::templateMissing, this, &SandboxService::templateMissing);
    connect(m_destroyer.get(), &SandboxDestroyer::workKept, this, &SandboxService::workKept);
    connect(m_idle.get(), &SandboxIdleExpiry::workNotKept, this, &SandboxService::workNotKept);
    connect(m_cloudTtl.get(), &CloudTtlKeeper::expiryNear, this, &SandboxService::cloudExpiryNear);
}

void SandboxService::extendCloud(const QString &sandboxId, std::function<void(const QString &error)> done)
{
    const std::optional<SandboxRecord> r = m_ops->records().find(sandboxId);
    if (!r || r->state == SandboxState::Destroyed) {
        QTimer::singleShot(0, this, [done, sandboxId] { done(QStringLiteral("unknown sandbox_id %1").arg(sandboxId)); });
        return;
    }
    m_cloudTtl->extend(*r, std::move(done));
}

SandboxService::~SandboxService() = default;

void SandboxService::setAttacher(RuntimeAttacher *attacher)
{
    m_ops->setAttacher(attacher);
}

void SandboxService::setBeforeExpiry(std::function<void(const QString &, std::function<void(const QString &)>)> hook)
{
    m_idle->setBeforeExpiry(std::move(hook));
}

void SandboxService::setDestroyGuard(DestroyGuard *guard)
{
    m_destroyer->setGuard(guard);
}

void SandboxService::setCloneSeeder(CloneSeeder *seeder)
{
    m_creator->setCloneSeeder(seeder);
}

void SandboxService::setCloudWarmPool(CloudWarmPool *pool)
{
    m_ops->setCloudWarmPool(pool);
}

void SandboxService::setWarmPool(WarmPool *pool)
{
    m_ops->setWarmPool(pool);
}

void SandboxService::create(const CreateRequest &request, Done done)
{
    m_creator->create(request, std::move(done));
}

void SandboxService::destroy(const QString &sandboxId, Done done, const QString &reason, bool force)
{
    m_destroyer->destroy(sandboxId, std::move(done), reason, force);
}

void SandboxService::holdStopped(const QString &sandboxId, const QString &why, HoldDone done)
{
    hold(sandboxId, why, true, std::move(done));
}

void SandboxService::holdMarkedStopped(const QString &sandboxId, const QString &why, HoldDone done)
{
    hold(sandboxId, why, false, std::move(done));
}

bool SandboxService::holdAsIs(const QString &sandboxId, const QString &why)
{
    if (!m_ops->heldFor(sandboxId).isEmpty() || m_creator->isCreating(sandboxId) || m_destroyer->isDestroying(sandboxId))
        return false;
    m_ops->hold(sandboxId, why);
    m_ops->detach(sandboxId);
    return true;
}

void SandboxService::hold(const QString &sandboxId, const QString &why, bool stopVm, HoldDone done)
{
    const auto r = m_ops->records().find(sandboxId);
    QString refusal;
    if (!r)
        refusal = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
    else if (r->state != SandboxState::Running && r->state != SandboxState::Stopped)
        refusal = QStringLiteral("sandbox %1 is %2").arg(sandboxId, sandboxStateName(r->state));
    else if (!m_ops->heldFor(sandboxId).isEmpty())
        refusal = QStringLiteral("sandbox %1 is %2 already").arg(sandboxId, m_ops->heldFor(sandboxId));
    else if (m_creator->isCreating(sandboxId) || m_destroyer->isDestroying(sandboxId))
        refusal = QStringLiteral("sandbox %1 is being created or destroyed").arg(sandboxId);
    if (!refusal.isEmpty())
        return QTimer::singleShot(0, this, [done, refusal] { done(false, refusal, QString()); });
    m_ops->hold(sandboxId, why);
    if (r->state == SandboxState::Running) {
        const qint64 now = m_ops->clock().nowMs();
        QString error;
        // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
        if (!m_ops->records().markStopped(sandboxId, now, QStringLiteral("stopped while %1").arg(why), now, error)) {
            m_ops->release(sandboxId);
            const QString failed = error.isEmpty() ? QStringLiteral("sandbox %1 changed meanwhile").arg(sandboxId) : error;
            return QTimer::singleShot(0, this, [done, failed] { done(false, failed, QString()); });
        }
        m_ops->markSessionsLost(sandboxId, QStringLiteral("the sandbox was stopped while %1").arg(why), now);
        m_ops->detach(sandboxId);
        emit sandboxesChanged();
    }
    const QString runtime = r->runtimeName;
    if (!stopVm)
        return QTimer::singleShot(0, this, [done, runtime] { done(true, QString(), runtime); });
    // `sbx stop` of a stopped VM is harmless: it also waits out a stop a sleep began.
    m_ops->stopRuntime(sandboxId, runtime, [done, runtime] { done(true, QString(), runtime); });
}

void SandboxService::release(const QString &sandboxId)
{
    m_ops->release(sandboxId);
}

void SandboxService::replaceHeldRuntime(const QString &sandboxId, const QString &templateRef,
                                        std::function<void(bool, const QString &)> done)
{
    const auto r = m_ops->records().find(sandboxId);
    const std::optional<Workspace> w = r ? m_ops->workspaces().find(r->workspaceId) : std::nullopt;
    QString refusal;
    if (!r || !w)
        refusal = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
    else if (m_ops->heldFor(sandboxId).isEmpty() || r->state != SandboxState::Stopped)
        refusal = QStringLiteral("sandbox %1 is not held stopped").arg(sandboxId);
    if (!refusal.isEmpty())
        return QTimer::singleShot(0, this, [done, refusal] { done(false, refusal); });
    SbxCreateSpec spec;
    spec.runtimeName = r->runtimeName;
    spec.templateRef = templateRef;
    spec.memory = r->memory;
    spec.workspaceRoot = w->hostPath;
    spec.clone = w->mode == WorkspaceMode::Clone;   // a fresh clone: the holder puts the saved work back
    QPointer<SandboxService> self(this);
    m_ops->removeRuntime(spec.runtimeName, [self, sandboxId, spec, done](bool removed, const QString &rmError) {
        if (!self)
            return;
        if (!removed)
            return done(false, QStringLiteral("removing its VM failed: %1").arg(rmError));
        self->m_ops->sbx().create(spec, [self, sandboxId, spec, done](const SbxResult &created) {
            if (!self)
                return;
            if (!created.ok)
                return done(false, QStringLiteral("creating its VM from %1 failed: %2").arg(spec.templateRef, created.error));
            QString error;
            if (!self->m_ops->records().setTemplateRef(sandboxId, spec.templateRef, error))
                qCWarning(lcSandbox).noquote() << "cannot record the template of" << sandboxId << ":" << error;
            self->m_ops->stopRuntime(sandboxId, spec.runtimeName, [done] { done(true, QString()); });
        });
    });
}

WorkspaceService &SandboxService::workspaces() const
{
    return m_ops->workspaces();
}

void SandboxService::pause(const PauseRequest &request, std::function<void(const PauseOutcome &)> done)
{
    const QString &id = request.sandboxId;
    PauseOutcome o;
    const auto r = m_ops->records().find(id);
    QList<BashSessionRecord> running;
    if (r && r->state == SandboxState::Running)
        for (const BashSessionRecord &s : m_ops->sessions().listForSandbox(id, 0))
            if (!s.exited)
                running.append(s);
    if (!r || r->state == SandboxState::Destroyed)
        o.error = QStringLiteral("unknown sandbox_id %1 (`chat2sbx sandbox list` shows the sandboxes)").arg(id);
    else if (r->state == SandboxState::Stopped) {
        o.ok = true;
        o.alreadyPaused = true;
    } else if (r->state != SandboxState::Running)
        o.error = QStringLiteral("sandbox %1 is %2: only a running sandbox can be paused").arg(id, sandboxStateName(r->state));
    else if (!m_ops->heldFor(id).isEmpty())
        o.error = QStringLiteral("sandbox %1 is %2: try again when that is done").arg(id, m_ops->heldFor(id));
    else if (m_creator->isCreating(id) || m_destroyer->isDestroying(id))
        o.error = QStringLiteral("sandbox %1 is being created or destroyed").arg(id);
    else if (!running.isEmpty() && request.running == RunningCommands::Refuse) {
        for (const BashSessionRecord &s : running)
            o.runningCommands << QStringLiteral("%1 (%2)").arg(s.command.simplified().left(80), s.id);
        o.error = QStringLiteral("%1 still running in sandbox %2, and pausing ends %3: %4. Pause anyway to end %3 "
                                 "(--end-running-commands), or wait until %5 done")
                      .arg(running.size() == 1 ? QStringLiteral("a command is") : QStringLiteral("%1 commands are").arg(running.size()),
                           id, running.size() == 1 ? QStringLiteral("it") : QStringLiteral("them"),
                           o.runningCommands.join(QStringLiteral("; ")),
                           running.size() == 1 ? QStringLiteral("it is") : QStringLiteral("they are"));
    } else {
        o.ok = true;
        o.commandsEnded = static_cast<int>(running.size());
        // Answered once `sbx stop` returned (a CLI acting alone exits right after).
        if (m_sleeper->pause(id, [done, o] { done(o); }))
            return;
        o = PauseOutcome();
        o.error = QStringLiteral("sandbox %1 changed meanwhile: look again with `chat2sbx sandbox list`").arg(id);
    }
    QTimer::singleShot(0, this, [done, o] { done(o); });
}

void SandboxService::removeUnusedRuntime(const QString &runtimeName, std::function<void(bool, const QString &)> done)
{
    m_ops->removeRuntime(runtimeName, std::move(done));
}

bool SandboxService::isSbxAvailable() const
{
    return m_reconciler->isSbxAvailable();
}

QString SandboxService::heldFor(const QString &sandboxId) const
{
    return m_ops->heldFor(sandboxId);
}

void SandboxService::ensureAvailable(std::function<void(bool, const QString &)> done)
{
    m_reconciler->ensureAvailable(std::move(done));
}

// ---- views and text -------------------------------------------------------------------------------

std::optional<SandboxView> SandboxService::get(const QString &sandboxId) const
{
    if (auto r = m_ops->records().find(sandboxId))
        return m_ops->viewOf(*r);
    return std::nullopt;
}

QList<SandboxView> SandboxService::list() const
{
    return m_ops->records().listViews();
}

QList<SandboxView> SandboxService::listPage(const SandboxRepository::Page &page) const
{
    return m_ops->records().listViews(page);
}

int SandboxService::countListed() const
{
    return m_ops->records().countListed();
}

QString SandboxService::publicText(const QString &text) const
{
    return redactForAgent(text, m_ops->config(), [this] { return m_ops->records().list(true); });
}

bool SandboxService::checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const
{
    return m_waker->checkHostFolder(sandboxId, workspace, error);
}

int SandboxService::countActive() const
{
    return m_ops->records().countActive();
}

bool SandboxService::cloudExpiryDeletes() const
{
    return m_ops->cloudExpiryDeletes();
}

int SandboxService::countActiveInCloud() const
{
    int n = 0;
    for (const SandboxRecord &r : m_ops->records().listCloud())
        n += r.isActive() ? 1 : 0;
    return n;
}

// ---- expose ---------------------------------------------------------------------------------------

void SandboxService::expose(const QString &sandboxId, const ExposeRequest &request,
                            std::function<void(const ExposeOutcome &)> done)
{
    m_ports->expose(sandboxId, request, std::move(done));
}

// ---- resolver -------------------------------------------------------------------------------------

bool SandboxService::resolveHeld(const QString &sandboxId, RunningSandbox &out, QString &error)
{
    const QString why = m_ops->heldFor(sandboxId);
    if (why.isEmpty()) {
        error = QStringLiteral("sandbox %1 is not held").arg(sandboxId);
        return false;
    }
    // The hold keeps everyone else out; its holder wakes the VM like a tool call would. Nothing runs in
    // between (one thread), so nobody else sees the sandbox released.
    m_ops->release(sandboxId);
    const bool ok = resolveRunning(sandboxId, out, error);
    m_ops->hold(sandboxId, why);
    return ok;
}

bool SandboxService::resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error)
{
    QString mode, path;
    const auto r = m_ops->records().findWithWorkspace(sandboxId, mode, path);
    if (!r) {
        error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return false;
    }
    if (r->isUnreachable() && (r->state == SandboxState::Running || r->state == SandboxState::Stopped)) {
        error = unreachableError(sandboxId, publicText(r->unreachableWhy), r->unreachableSince, r->unreachableLists);
        m_reconciler->reconcile(nullptr);   // ask sbx again now: the next call finds it back as soon as sbx lists it
        return false;
    }
    // A cloud sandbox answers through the cloud, whether or not local sbx does here.
    const bool available = r->isCloud() || m_reconciler->isSbxAvailable();
    bool woke = false;
    std::shared_ptr<StartCheck> startCheck;
    if (r->state == SandboxState::Stopped && available) {
        if (!m_waker->wake(*r, startCheck, error))
            return false;
        woke = true;
    } else if (r->state == SandboxState::Running && !m_ops->heldFor(sandboxId).isEmpty()) {
        // A job holds it running (a move saving a clone's work first): nothing else reaches it.
        error = QStringLiteral("sandbox %1 is %2 right now; call again once that is done").arg(sandboxId, m_ops->heldFor(sandboxId));
        return false;
    } else if (r->state != SandboxState::Running) {
        error = QStringLiteral("sandbox %1 is not running (state %2%3)")
                    .arg(sandboxId, sandboxStateName(r->state),
                         r->reason.isEmpty() ? QString() : QStringLiteral(": ") + publicText(r->reason));
        return false;
    }
    if (!available) {
        error = m_reconciler->unavailableError();
        return false;
    }
    out = SandboxRuntimeOps::runningOf(*r, path, mode == workspaceModeName(WorkspaceMode::Managed));
    out.wokeFromSleep = woke;
    out.startCheck = startCheck;
    // Renewing is a write: at most about once a second per sandbox (waking renewed it).
    const qint64 now = m_ops->clock().nowMs();
    if (!woke && (now - r->lastActivityAt >= 1000 || r->idleDeadline < now + m_ops->idleMs() - 1000))
        m_ops->renewNow(sandboxId);
    if (r->isCloud())
        m_cloudTtl->inUse(*r);
    return true;
}

} // namespace chat2sbx
