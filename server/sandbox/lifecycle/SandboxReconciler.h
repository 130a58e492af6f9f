#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "sandbox/lifecycle/UnreachableDiagnosis.h"
#include "sandbox/sbx/SbxCloud.h"
#include "state/SandboxRepository.h"

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>

namespace chat2sbx {

class SandboxCreator;
class SandboxDestroyer;
class SandboxIdleExpiry;
class SandboxRuntimeOps;
struct ReconcileAction;
struct SbxRuntimeInfo;

// Start-up (and retry) reconciliation of the sandbox records with `sbx ls`, and whether sbx is
// available: while it is not, records stay untouched, the sandbox jobs refuse, and a retry timer
// reconciles again. The plan's sbx calls (stop, remove, destroy) and the re-attaches of running
// sandboxes run afterwards in the background, a few at a time; start-up does not wait for them.
class SandboxReconciler : public QObject {
    Q_OBJECT
public:
    explicit SandboxReconciler(SandboxRuntimeOps &ops, QObject *parent = nullptr);

    // The jobs reconciliation consults (in flight) and drives (interrupted destroys, the idle timer);
    // set once by SandboxService, before the first reconcile.
    void setJobs(const SandboxCreator &creator, SandboxDestroyer &destroyer, SandboxIdleExpiry &idle);
    void setRetryIntervalMs(int ms)
    {
        m_retryIntervalMs = ms;
        m_cloudTimer.setInterval(ms);
    }

    // `done` runs once records and runtimes agree, or when sbx turned out to be unavailable (then
    // records stay untouched and it retries later). Starts the idle timer.
    void reconcile(std::function<void()> done);
    // Calls back at once when sbx is available; otherwise reconciles first.
    void ensureAvailable(std::function<void(bool ok, const QString &error)> done);
    bool isSbxAvailable() const { return m_available; }
    // "sbx is not available: <why>", what the jobs answer while it is not.
    QString unavailableError() const;
    // What the last `sbx ls` said of the sandboxes it left out (why empty: it left none out).
    const ListingDiagnosis &listing() const { return m_listing; }
    // Stops the retry timer and the background work, shuts the warm pool down and detaches every
    // running sandbox's channel; sandboxes keep running for the next start.
    void shutdown();

private:
    void reconcileWith(const QList<SbxRuntimeInfo> &runtimes, const QByteArray &listErr);
    // Cloud sandboxes against `sbx --cloud ls` (SandboxReconcilerCloud.cpp), apart from the local
    // ones: one backend that does not answer never marks the other's sandboxes gone. A sandbox the
    // cloud removed (its time-to-live ended, or removed outside chat2sbx) is marked so, never made
    // again; one the cloud stopped is stopped; an interrupted create is removed from the cloud.
    // Again every retry interval while cloud sandboxes are active.
    void reconcileCloud();
    void applyCloudRow(const SandboxRecord &r, const SbxCloudInfo *row);
    void markUnreachable(const QString &id, const QHash<QString, SandboxView> &views);
    // views: the records reconciliation loaded, by id (one query for all, not one per re-attach).
    void apply(const ReconcileAction &action, const QHash<QString, SandboxView> &views, QList<RunningSandbox> &toAttach);
    void finishReconcile();
    void attachQueued();
    // The plan's sbx calls per record (stop, remove, destroy): at most kParallelAttaches at once.
    void runFollowUps();
    void followUpRemove(const QString &runtimeName, const QString &id, const QString &what);

    // Outlives this: SandboxService declares it first. The jobs: SandboxService's too.
    SandboxRuntimeOps &m_ops;
    const SandboxCreator *m_creator = nullptr;
    SandboxDestroyer *m_destroyer = nullptr;
    SandboxIdleExpiry *m_idle = nullptr;

    bool m_available = true;
    QString m_unavailableReason;
    ListingDiagnosis m_listing;
    bool m_warnedUnavailable = false;
    bool m_reconciling = false;
    QList<std::function<void()>> m_reconcileWaiters;
    QElapsedTimer m_reconcileTimer;
    // Re-attaches after reconciliation run in the background, a few at a time: start-up does not
    // wait for them (a tool call reaching a sandbox starts its channel itself).
    static constexpr int kParallelAttaches = 4;
    QList<RunningSandbox> m_attachQueue;
    int m_attachesRunning = 0;
    QList<std::function<void(std::function<void()> finished)>> m_followUps;
    int m_followUpsRunning = 0;
    QTimer m_retryTimer;
    QTimer m_cloudTimer;
    bool m_cloudListing = false;
    QSet<QString> m_cloudAttached;   // cloud sandboxes this process re-attached
    int m_retryIntervalMs = 30000;
};

} // namespace chat2sbx
