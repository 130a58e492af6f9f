#pragma once

#include "config/Config.h"
#include "sandbox/SandboxResolver.h"
#include "state/SandboxRepository.h"
#include "workspace/Workspace.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;
class RuntimeAttacher;
class SbxDriver;
class WarmPool;
class WorkspaceService;
struct SbxResult;

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
    };
    struct ExposeOutcome {
        bool ok = false;
        QString error;
        SandboxPortRecord port;
        bool existing = false;
    };
    using Done = std::function<void(const Outcome &)>;

    SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx, Clock &clock,
                   QObject *parent = nullptr);
    ~SandboxService() override;

    void setAttacher(RuntimeAttacher *attacher) { m_attacher = attacher; }
    RuntimeAttacher *attacher() const { return m_attacher; }
    // Sandboxes made ahead of need: create() of a new managed workspace with default memory takes one.
    void setWarmPool(WarmPool *pool) { m_warm = pool; }
    void setIdleCheckIntervalMs(int ms);
    void setRetryIntervalMs(int ms) { m_retryIntervalMs = ms; }

    void create(const CreateRequest &request, Done done);
    std::optional<SandboxView> get(const QString &sandboxId) const;
    QList<SandboxView> list() const;
    // Idempotent: a destroyed sandbox answers ok; a failed record is cleared too. `reason` is kept on
    // the destroyed record (e.g. idle expiry); empty for an explicit destroy.
    void destroy(const QString &sandboxId, Done done, const QString &reason = {});
    void expose(const QString &sandboxId, int sandboxPort, std::function<void(const ExposeOutcome &)> done);

    // Start-up (and retry) reconciliation of the records with `sbx ls`; `done` runs once records and
    // runtimes agree, or when sbx turned out to be unavailable (then records stay untouched and it
    // retries later). Starts the idle timer.
    void reconcile(std::function<void()> done);
    bool isSbxAvailable() const { return m_available; }
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

    // `text` fit for a tool result: runtime names become the sandbox id (or "<sandbox>"), managed
    // workspace folders become ~/workspace, data-directory paths become <data dir>.
    QString publicText(const QString &text) const;

    qint64 idleMs() const { return m_config.sandboxIdleSeconds * 1000; }
    SandboxRepository &repository() { return m_repo; }

signals:
    void sandboxesChanged();

private:
    SandboxView viewOf(const SandboxRecord &r) const;
    QString limitError() const;
    void renewNow(const QString &id);
    void finishCreate(const QString &id, const Outcome &outcome);
    void failCreate(const QString &id, const QString &reason);
    void attachCreated(const QString &id);
    void removeRuntime(const QString &runtimeName, std::function<void(bool ok, const QString &error)> done);
    void finishDestroy(const QString &id, const Outcome &outcome);
    void reconcileWith(const QList<QString> &runtimeNames);
    void finishReconcile();
    void attachQueued();
    void persist(const QString &id, SandboxState state, const QString &reason);
    RunningSandbox runningOf(const SandboxRecord &r, const std::optional<Workspace> &w) const;

    const Config &m_config;
    WorkspaceService &m_workspaces;
    SbxDriver &m_sbx;
    Clock &m_clock;
    SandboxRepository m_repo;
    RuntimeAttacher *m_attacher = nullptr;
    WarmPool *m_warm = nullptr;

    QHash<QString, QList<Done>> m_creating;     // sandbox id -> callers waiting for it (first: the creator)
    QHash<QString, QList<Done>> m_destroying;
    QHash<QString, QList<std::function<void(const ExposeOutcome &)>>> m_exposing;   // "id:port"

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
    QTimer m_idleTimer;
    QTimer m_retryTimer;
    int m_retryIntervalMs = 30000;
};

} // namespace chat2sbx
