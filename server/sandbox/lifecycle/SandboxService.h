#pragma once

#include "config/Config.h"
#include "sandbox/channel/SandboxResolver.h"
#include "sandbox/ports/PortExposure.h"
#include "state/BashSessionRepository.h"
#include "state/SandboxRepository.h"
#include "state/Workspace.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;
class DestroyGuard;
class RuntimeAttacher;
class SbxDriver;
class WarmPool;
class WorkspaceService;
struct ReconcileAction;
struct SbxResult;
struct SbxRuntimeInfo;

// The sandbox lifecycle (DESIGN.md "Sandbox lifecycle"): create / reuse / destroy / expose, the
// maxActiveSandboxes limit, idle expiry and start-up reconciliation against `sbx ls`. Every state
// transition is persisted before the external command runs; state is always read back from the
// database (the CLI changes it too). Everything runs on the event loop thread.
class SandboxService : public QObject, public SandboxResolver {
    Q_OBJECT
public:
    struct CreateRequest {
        QString workspaceId;   // empty: a new managed workspace
        QString memory;        // normalised ("512m"), empty: sbx default
    };
    struct Outcome {
        bool ok = false;
        QString error;         // readable; may contain internal names: pass through publicText()
        SandboxView view;
        bool reused = false;
        // destroy: where the work went before the runtime was removed (DestroyGuard).
        QString keptBranch;    // empty: nothing needed keeping
        QString keptSummary;   // one sentence, or empty
        bool exportFailed = false;   // refused because the work could not be kept (force overrides)
        QString exportError;         // why it could not be kept
    };
    using ExposeRequest = PortExposure::Request;
    using ExposeOutcome = PortExposure::Outcome;
    using Done = std::function<void(const Outcome &)>;

    SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx, Clock &clock,
                   QObject *parent = nullptr);
    ~SandboxService() override;

    void setAttacher(RuntimeAttacher *attacher) { m_attacher = attacher; }
    RuntimeAttacher *attacher() const { return m_attacher; }
    // Asked before every destroy (and idle expiry) to keep the sandbox's work; see DestroyGuard.
    void setDestroyGuard(DestroyGuard *guard) { m_guard = guard; }
    // Sandboxes made ahead of need: create() of a new managed workspace with default memory takes one.
    void setWarmPool(WarmPool *pool) { m_warm = pool; }
    void setIdleCheckIntervalMs(int ms);
    void setRetryIntervalMs(int ms) { m_retryIntervalMs = ms; }

    void create(const CreateRequest &request, Done done);
    std::optional<SandboxView> get(const QString &sandboxId) const;
    QList<SandboxView> list() const;
    // Idempotent: a destroyed sandbox answers ok; a failed record is cleared too. `reason` is kept on
    // the destroyed record (e.g. idle expiry); empty for an explicit destroy. The DestroyGuard keeps the
    // work first; when it cannot, nothing is destroyed (exportFailed) unless `force`.
    void destroy(const QString &sandboxId, Done done, const QString &reason = {}, bool force = false);
    // Publishes (or returns the existing mapping of) a sandbox port; a different host address or
    // port than an existing mapping has is an error that says which one exists.
    void expose(const QString &sandboxId, const ExposeRequest &request, std::function<void(const ExposeOutcome &)> done);

    // Start-up (and retry) reconciliation of the records with `sbx ls`; `done` runs once records and
    // runtimes agree, or when sbx turned out to be unavailable (then records stay untouched and it
    // retries later). Starts the idle timer.
    void reconcile(std::function<void()> done);
    bool isSbxAvailable() const { return m_available; }
    // "template missing: … (run `chat2sbx setup`)", the state sandbox_create reports when the pinned
    // template is absent.
    QString templateMissingMessage() const;
    QString sbxUnavailableReason() const { return m_unavailableReason; }
    // Calls back at once when sbx is available; otherwise reconciles first.
    void ensureAvailable(std::function<void(bool ok, const QString &error)> done);
    qint64 lastReconcileMs() const { return m_lastReconcileMs; }

    // Destroys running sandboxes past their idle deadline (the timer calls it; tests may too).
    void checkIdle();
    // Detaches every attached runtime; sandboxes keep running for the next start.
    void shutdown();

    // SandboxResolver: one indexed read; renews the idle deadline (written at most once a second).
    bool resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error) override;

    // `text` fit for a tool result (redactForAgent, SandboxPresenter.h): runtime names become the
    // sandbox id (or "<sandbox>"), managed workspace folders ~/workspace, data-directory paths a placeholder.
    QString publicText(const QString &text) const;

    qint64 idleMs() const { return m_config.sandboxIdleSeconds * 1000; }

    // ---- sleep (SandboxSleep decides when; this does it) ----
    qint64 sleepMs() const { return m_config.sandboxSleepSeconds * 1000; }
    // Running sandboxes no tool call reached for sleepMs(), not being created or destroyed.
    QStringList sleepCandidates() const;
    // What a channel needs to reach a running sandbox, without renewing its idle deadline.
    std::optional<RunningSandbox> runningSandbox(const QString &sandboxId) const;
    // A host workspace's folder must still be the approved directory whenever a VM may share it
    // again: sbx re-shares the folder by its path each time the VM starts (a wake, an export of a
    // sleeping clone). False with a readable reason when it was renamed, replaced or swapped.
    bool checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const;
    // running -> stopped (persisted first), channel closed, `sbx stop`. False if it was not running.
    bool putToSleep(const QString &sandboxId);
    // Its VM was found stopped after its channel exited at `exitedAt`: the sessions started before
    // are lost; the sandbox is stopped, or, when a tool call has already started the channel (and so
    // the VM) again, stays running with both times recorded.
    void noteStopped(const QString &sandboxId, qint64 exitedAt, bool channelBack);
    // Sandboxes creating, running or destroying (what maxActiveSandboxes counts).
    int countActive() const { return m_repo.countActive(); }

signals:
    void sandboxesChanged();
    // A create ended (error empty: it succeeded): SbxHealth learns missing sign-in or policy from it.
    void createFinished(const QString &error);
    // A create found the pinned template missing (SbxHealth checks again).
    void templateMissing();
    // Idle expiry could not keep a sandbox's work, so the sandbox was left in place (tray warning).
    void workNotKept(const QString &sandboxId, const QString &message);
    // A destroy saved the sandbox's work on a host branch first (tray notification).
    void workKept(const QString &sandboxId, const QString &branch, const QString &summary);

private:
    SandboxView viewOf(const SandboxRecord &r) const;
    QString limitError() const;
    void renewNow(const QString &id);
    void finishCreate(const QString &id, const Outcome &outcome);
    // `sbx create` failed because the pinned template is not on this host (sbx-contract.md, create row).
    static bool isTemplateMissing(const QString &createError, const QString &templateRef);
    void dropForMissingTemplate(const QString &id, const QString &runtimeName);
    void failCreate(const QString &id, const QString &reason);
    void attachCreated(const QString &id);
    void removeRuntime(const QString &runtimeName, std::function<void(bool ok, const QString &error)> done);
    void finishDestroy(const QString &id, const Outcome &outcome);
    void removeAfterGuard(const QString &sandboxId, const QString &reason, const QString &keptBranch, const QString &keptSummary);
    void postponeIdleExpiry(const QString &sandboxId, const QString &why);
    void reconcileWith(const QList<SbxRuntimeInfo> &runtimes);
    // records: the ones reconciliation loaded, by id (one query for all, not one per re-attach).
    void apply(const ReconcileAction &action, const QHash<QString, SandboxView> &views, QList<RunningSandbox> &toAttach);
    void finishReconcile();
    void attachQueued();
    void persist(const QString &id, SandboxState state, const QString &reason);
    void markSessionsLost(const QString &id, const QString &reason, qint64 startedBefore);
    // stopped -> running for a tool call. `startCheck` is set for a host folder: whether the VM,
    // started by the channel's `sbx exec`, got the approved folder (see StartCheck).
    bool wake(const SandboxRecord &r, std::shared_ptr<StartCheck> &startCheck, QString &error);
    // The start check failed: back to stopped, with why, before anything of a tool call ran in it.
    void refuseWake(const QString &sandboxId, const QString &why);
    void stopRuntime(const QString &id, const QString &runtimeName, std::function<void()> finished = nullptr);
    // Reconciliation's sbx calls per record (stop, remove, destroy): at most kParallelAttaches at once.
    void runFollowUps();
    void followUpRemove(const QString &runtimeName, const QString &id, const QString &what);
    void checkPortsAfterWake(const QString &id, const QString &runtimeName);
    RunningSandbox runningOf(const SandboxRecord &r, const std::optional<Workspace> &w) const;

    // Outlive this: Services (runtime/Services.h) owns them, declared before this. Config: Controller's member.
    const Config &m_config;
    WorkspaceService &m_workspaces;
    SbxDriver &m_sbx;
    Clock &m_clock;
    SandboxRepository m_repo;
    BashSessionRepository m_sessions;
    RuntimeAttacher *m_attacher = nullptr;
    DestroyGuard *m_guard = nullptr;
    WarmPool *m_warm = nullptr;
    std::unique_ptr<PortExposure> m_ports;

    QHash<QString, QList<Done>> m_creating;     // sandbox id -> callers waiting for it (first: the creator)
    QHash<QString, QList<Done>> m_destroying;
    QSet<QString> m_stopsInFlight;              // `sbx stop` of a sandbox put to sleep runs

    bool m_available = true;
    QString m_unavailableReason;
    bool m_warnedUnavailable = false;
    bool m_reconciling = false;
    QList<std::function<void()>> m_reconcileWaiters;
    QElapsedTimer m_reconcileTimer;
    qint64 m_lastReconcileMs = -1;
    // Re-attaches after reconciliation run in the background, a few at a time: start-up does not
    // wait for them (a tool call reaching a sandbox starts its channel itself).
    static constexpr int kParallelAttaches = 4;
    QList<RunningSandbox> m_attachQueue;
    int m_attachesRunning = 0;
    QList<std::function<void(std::function<void()> finished)>> m_followUps;
    int m_followUpsRunning = 0;
    QTimer m_idleTimer;
    QTimer m_retryTimer;
    int m_retryIntervalMs = 30000;
};

} // namespace chat2sbx
