#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/bash/StopReasons.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/lifecycle/ReconcilePlan.h"
#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxDestroyer.h"
#include "sandbox/lifecycle/SandboxIdleExpiry.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/lifecycle/UnreachableDiagnosis.h"
#include "sandbox/lifecycle/WarmPool.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/WriteBatch.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>
#include <QSet>

namespace chat2sbx {

namespace {

// What an older chat2sbx recorded when it marked a sandbox failed because `sbx ls` left it out.
bool failedAsVanished(const SandboxRecord &r)
{
    return r.reason.startsWith(QLatin1String("its runtime disappeared (sbx ls no longer lists it)"));
}

} // namespace

SandboxReconciler::SandboxReconciler(SandboxRuntimeOps &ops, QObject *parent) : QObject(parent), m_ops(ops)
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, [this] { reconcile(nullptr); });
    m_cloudTimer.setInterval(m_retryIntervalMs);
    connect(&m_cloudTimer, &QTimer::timeout, this, &SandboxReconciler::reconcileCloud);
    // While cloud sandboxes are allowed, the cloud is listed every interval (a quick no-op without any):
    // expiry happens there, not here.
    if (ops.config().cloudSandboxes)
        m_cloudTimer.start();
}

void SandboxReconciler::setJobs(const SandboxCreator &creator, SandboxDestroyer &destroyer, SandboxIdleExpiry &idle)
{
    m_creator = &creator;
    m_destroyer = &destroyer;
    m_idle = &idle;
}

QString SandboxReconciler::unavailableError() const
{
    return QStringLiteral("sbx is not available: %1").arg(m_unavailableReason);
}

void SandboxReconciler::ensureAvailable(std::function<void(bool, const QString &)> done)
{
    if (m_available)
        return done(true, {});
    QPointer<SandboxReconciler> self(this);
    reconcile([self, done] {
        if (!self)
            return;
        done(self->m_available, self->m_available ? QString() : self->unavailableError());
    });
}

void SandboxReconciler::reconcile(std::function<void()> done)
{
    if (done)
        m_reconcileWaiters.append(std::move(done));
    if (m_reconciling)
        return;
    m_reconciling = true;
    m_retryTimer.stop();
    m_reconcileTimer.start();
    QPointer<SandboxReconciler> self(this);
    m_ops.sbx().list([self](const SbxResult &r, const QList<SbxRuntimeInfo> &items) {
        if (!self)
            return;
        if (!r.ok) {
            self->m_available = false;
            self->m_unavailableReason = r.error;
            if (!self->m_warnedUnavailable)
                qCWarning(lcSandbox).noquote() << "sbx is not available, sandbox records left untouched and sandbox tools "
                                                  "disabled until it is (retrying every"
                                               << self->m_retryIntervalMs / 1000 << "s):" << r.error;
            self->m_warnedUnavailable = true;
            self->m_retryTimer.start(self->m_retryIntervalMs);
            self->reconcileCloud();   // the cloud answers for its own sandboxes
            self->finishReconcile();
            return;
        }
        if (!self->m_available || self->m_warnedUnavailable)
            qCInfo(lcSandbox) << "sbx is available again";
        self->m_available = true;
        self->m_unavailableReason.clear();
        self->m_warnedUnavailable = false;
        self->reconcileWith(items, r.err);
    });
}

void SandboxReconciler::apply(const ReconcileAction &a, const QHash<QString, SandboxView> &views, QList<RunningSandbox> &toAttach)
{
    QPointer<SandboxReconciler> self(this);
    const QString id = a.sandboxId;
    switch (a.kind) {
    case ReconcileAction::Reattach:
        if (const auto v = views.constFind(id); v != views.constEnd())
            toAttach.append(m_ops.runningOf(v->record, v->workspace));
        return;
    case ReconcileAction::MarkStopped: {
        // sbx-contract.md §1: the VM stopped while nobody was attached; its processes are gone.
        const qint64 now = m_ops.clock().nowMs();
        QString error;
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "stopped while chat2sbx was not running; its bash sessions are lost,"
                                       << "its files are kept and the next tool call wakes it";
        m_ops.markSessionsLost(id, stopReasons::sessionLostWhileDown(), now);
        if (!m_ops.records().markStopped(id, now, stopReasons::sandboxStoppedWhileDown(), now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << id << "stopped:" << error;
        return;
    }
    case ReconcileAction::FinishStop: {
        qCInfo(lcSandbox).noquote() << "finishing the interrupted sleep of" << id;
        m_ops.markSessionsLost(id, stopReasons::sessionLostStopped(), m_ops.clock().nowMs());
        const QString runtime = a.runtimeName;
        m_followUps.append([self, id, runtime](std::function<void()> finished) {
            if (self)
                self->m_ops.stopRuntime(id, runtime, finished);
        });
        return;
    }
    case ReconcileAction::MarkUnreachable:
        markUnreachable(id, views);
        return;
    case ReconcileAction::Reachable: {
        qCInfo(lcSandbox).noquote() << "sandbox" << id << "is reachable again: sbx lists it";
        QString error;
        if (!m_ops.records().clearUnreachable(id, m_ops.clock().nowMs(), error))
            qCWarning(lcSandbox).noquote() << "cannot record that" << id << "is reachable:" << error;
        return;
    }
    case ReconcileAction::RecoverFailed: {
        // An older chat2sbx marked it failed only because a listing left it out: it was never gone.
        const bool running = a.listedStatus == QLatin1String("running");
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "was marked failed only because sbx did not list it; its state"
                                       << "comes back" << (a.listedStatus.isEmpty() ? "(still unreachable)" : "");
        QString error;
        const qint64 now = m_ops.clock().nowMs();
        if (!running)
            m_ops.markSessionsLost(id, stopReasons::sessionLostWhileDown(), now);
        if (!m_ops.records().recoverFailed(id, running ? SandboxState::Running : SandboxState::Stopped, now, error)) {
            if (!error.isEmpty())
                qCWarning(lcSandbox).noquote() << "cannot recover" << id << ":" << error;
            return;
        }
        if (a.listedStatus.isEmpty())
            return markUnreachable(id, views);
        const auto v = views.constFind(id);
        if (running && v != views.constEnd()) {
            SandboxView recovered = *v;
            recovered.record.state = SandboxState::Running;
            toAttach.append(m_ops.runningOf(recovered.record, recovered.workspace));
        }
        return;
    }
    case ReconcileAction::KeepLeftover:
        qCWarning(lcSandbox).noquote() << "failed sandbox" << id << "still has its runtime" << a.runtimeName
                                       << "and it may hold work in its clone of the workspace; left alone "
                                          "(sandbox_destroy removes it)";
        return;
    case ReconcileAction::RemoveLeftover:
        qCInfo(lcSandbox).noquote() << "removing the leftover runtime" << a.runtimeName << "of failed sandbox" << id;
        followUpRemove(a.runtimeName, id, QStringLiteral("leftover"));
        return;
    case ReconcileAction::CleanInterruptedCreate:
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "was half-made when chat2sbx stopped; removing" << a.runtimeName;
        m_ops.persist(id, SandboxState::Failed,
                QStringLiteral("creation was interrupted because chat2sbx stopped; the partial runtime was removed"));
        followUpRemove(a.runtimeName, id, QStringLiteral("partial"));
        return;
    case ReconcileAction::FinishDestroy:
        qCInfo(lcSandbox).noquote() << "finishing the interrupted destroy of" << id;
        m_followUps.append([self, id](std::function<void()> finished) {
            if (self)
                self->m_destroyer->destroy(id, [finished](const SandboxOutcome &) { finished(); });
        });
        return;
    case ReconcileAction::ReportUnknown:
        qCWarning(lcSandbox).noquote() << "runtime" << a.runtimeName
                                       << "looks like chat2sbx's but no sandbox record owns it; left alone "
                                          "(remove it with `sbx rm --force " + a.runtimeName + "` if it is not needed)";
        return;
    }
}

void SandboxReconciler::markUnreachable(const QString &id, const QHash<QString, SandboxView> &views)
{
    const auto v = views.constFind(id);
    if (v == views.constEnd() || !v->record.isUnreachable())
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "is unreachable (kept as it is, never removed for this):"
                                       << m_listing.why;
    QString error;
    if (!m_ops.records().markUnreachable(id, m_listing.why, m_ops.clock().nowMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot record that" << id << "is unreachable:" << error;
}

void SandboxReconciler::followUpRemove(const QString &runtimeName, const QString &id, const QString &what)
{
    QPointer<SandboxReconciler> self(this);
    m_followUps.append([self, runtimeName, id, what](std::function<void()> finished) {
        if (!self)
            return;
        self->m_ops.removeRuntime(runtimeName, [self, id, what, finished](bool ok, const QString &error) {
            if (self && !ok)
                qCWarning(lcSandbox).noquote() << "cannot remove the" << what << "runtime of" << id << ":" << error;
            finished();
        });
    });
}

void SandboxReconciler::runFollowUps()
{
    QPointer<SandboxReconciler> self(this);
    while (m_followUpsRunning < kParallelAttaches && !m_followUps.isEmpty()) {
        const auto job = m_followUps.takeFirst();
        ++m_followUpsRunning;
        job([self] {
            if (!self)
                return;
            --self->m_followUpsRunning;
            self->runFollowUps();
        });
    }
}

void SandboxReconciler::reconcileWith(const QList<SbxRuntimeInfo> &runtimes, const QByteArray &listErr)
{
    QList<ReconcileRuntime> rows;
    QSet<QString> present;
    for (const SbxRuntimeInfo &i : runtimes) {
        rows.append({i.name, i.status});
        present.insert(i.name);
    }
    QSet<QString> ownedByPool;
    if (WarmPool *warm = m_ops.warmPool())
        warm->reconcileWith(present, ownedByPool);
    // Every record with its workspace in one query (destroyed ones take no part in the plan): a
    // restart's work is this query, the plan and one write per changed record, never a query or an
    // sbx call per record (integration.sandbox_reconcile restartWorkIsLinear counts them).
    QList<ReconcileRecord> records;
    QHash<QString, SandboxView> loaded;
    int listedOfOurs = 0;
    int missing = 0;
    const QList<SandboxView> views = m_ops.records().listViews();
    records.reserve(views.size());
    loaded.reserve(views.size());
    for (const SandboxView &v : views) {
        const SandboxRecord &r = v.record;
        if (r.isCloud())
            continue;   // not in `sbx ls`: reconcileCloud reads `sbx --cloud ls`
        ReconcileRecord rec{r.id, r.runtimeName, r.state, false,
                            m_creator->isCreating(r.id) || m_destroyer->isDestroying(r.id) || !m_ops.heldFor(r.id).isEmpty()};
        if (r.state == SandboxState::Failed) {
            rec.cloneWorkspace = v.workspace && v.workspace->mode == WorkspaceMode::Clone;
            rec.failedAsVanished = failedAsVanished(r);
        }
        rec.unreachable = r.isUnreachable();
        if (!rec.inFlight && (r.state == SandboxState::Running || r.state == SandboxState::Stopped || rec.failedAsVanished))
            (present.contains(r.runtimeName) ? listedOfOurs : missing) += 1;
        records.append(rec);
        loaded.insert(r.id, v);
    }
    m_listing = diagnoseListing(listErr, listedOfOurs, missing, m_retryIntervalMs / 1000);
    const QList<ReconcileAction> plan = planReconciliation(records, rows, ownedByPool, kRuntimePrefix);
    QList<RunningSandbox> toAttach;
    {
        // The records' writes (a VM found stopped, a runtime vanished) commit once, not once each.
        WriteBatch batch(m_ops.records().database());
        for (const ReconcileAction &a : plan)
            apply(a, loaded, toAttach);
    }
    using K = ReconcileAction;
    qCInfo(lcSandbox).noquote() << QStringLiteral("reconciled with sbx ls in %1 ms: %2 re-attached, %3 unreachable, "
                                                  "%4 interrupted creates cleaned up, %5 leftover runtimes of failed sandboxes, "
                                                  "%6 unknown runtimes reported, %7 found stopped")
                                       .arg(m_reconcileTimer.elapsed()).arg(countActions(plan, K::Reattach))
                                       .arg(missing).arg(countActions(plan, K::CleanInterruptedCreate))
                                       .arg(countActions(plan, K::RemoveLeftover) + countActions(plan, K::KeepLeftover))
                                       .arg(countActions(plan, K::ReportUnknown)).arg(countActions(plan, K::MarkStopped));

    // The sbx calls the plan asked for run a few at a time, like the re-attaches: none waits on another
    // record's, and the start-up does not wait on them.
    runFollowUps();
    // While sbx leaves any sandbox out, list again every so often: it comes back by itself.
    if (missing > 0)
        m_retryTimer.start(m_retryIntervalMs);
    m_idle->start();
    if (m_ops.attacher()) {
        m_attachQueue += toAttach;
        attachQueued();
    }
    reconcileCloud();
    finishReconcile();
}

void SandboxReconciler::attachQueued()
{
    QPointer<SandboxReconciler> self(this);
    while (m_ops.attacher() && m_attachesRunning < kParallelAttaches && !m_attachQueue.isEmpty()) {
        const RunningSandbox s = m_attachQueue.takeFirst();
        const auto record = m_ops.records().find(s.sandboxId);
        if (!record || record->state != SandboxState::Running || m_destroyer->isDestroying(s.sandboxId))
            continue;   // destroyed or failed while it waited
        ++m_attachesRunning;
        m_ops.attacher()->attach(s, [self, id = s.sandboxId](bool ok, const QString &error) {
            if (!self)
                return;
            if (!ok)
                qCWarning(lcSandbox).noquote() << "re-attaching" << id << "failed (it stays running):" << error;
            --self->m_attachesRunning;
            self->attachQueued();
        });
    }
}

void SandboxReconciler::finishReconcile()
{
    m_reconciling = false;
    emit m_ops.sandboxesChanged();
    const auto waiters = std::move(m_reconcileWaiters);
    m_reconcileWaiters.clear();
    for (const auto &w : waiters)
        w();
}

void SandboxReconciler::shutdown()
{
    m_idle->stop();
    m_retryTimer.stop();
    m_cloudTimer.stop();
    m_attachQueue.clear();
    m_followUps.clear();
    if (WarmPool *warm = m_ops.warmPool())
        warm->shutdown();
    if (!m_ops.attacher())
        return;
    for (const SandboxRecord &r : m_ops.records().inState(SandboxState::Running))
        m_ops.detach(r.id);
}

} // namespace chat2sbx
