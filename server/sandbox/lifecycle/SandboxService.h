#pragma once

#include "config/Config.h"
#include "sandbox/channel/SandboxResolver.h"
#include "sandbox/lifecycle/SandboxOutcome.h"
#include "sandbox/ports/PortExposure.h"
#include "state/BashSessionRepository.h"
#include "state/SandboxRepository.h"
#include "state/Workspace.h"

#include <QHash>
#include <QObject>
#include <QSet>
#include <QStringList>
#include <QTimer>

#include <functional>
#include <memory>
#include <optional>

namespace chat2sbx {

struct SbxCloudCreateSpec;
class Clock;
class CloneSeeder;
class CloudWarmPool;
class Database;
class DestroyGuard;
class RuntimeAttacher;
class SandboxCreator;
class SandboxDestroyer;
class SandboxIdleExpiry;
class SandboxReconciler;
class SandboxRuntimeOps;
class SandboxSleeper;
class CloudTtlKeeper;
class SandboxWaker;
class SbxDriver;
class WarmPool;
class WorkspaceService;

// The sandbox lifecycle (DESIGN.md "Sandbox lifecycle"): create / reuse / destroy / expose, the
// maxActiveSandboxes limit, wake and sleep, idle expiry and start-up reconciliation against `sbx ls`.
// A facade over one class per job (SandboxCreator, SandboxDestroyer, SandboxWaker, SandboxSleeper,
// SandboxIdleExpiry, SandboxReconciler) sharing SandboxRuntimeOps. Every state transition is
// persisted before the external command runs; state is always read back from the database (the CLI
// changes it too). Everything runs on the event loop thread.
class SandboxService : public QObject, public SandboxResolver {
    Q_OBJECT
public:
    using CreateRequest = SandboxCreateRequest;
    using Outcome = SandboxOutcome;
    using ExposeRequest = PortExposure::Request;
    using ExposeOutcome = PortExposure::Outcome;
    using Done = SandboxDone;

    SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx, Clock &clock,
                   QObject *parent = nullptr);
    ~SandboxService() override;

    void setAttacher(RuntimeAttacher *attacher);
    // Asked before every destroy (and idle expiry) to keep the sandbox's work; see DestroyGuard.
    void setDestroyGuard(DestroyGuard *guard);
    // What carries a clone workspace into a cloud sandbox (CloudCloneSeed); outlives this.
    void setCloneSeeder(CloneSeeder *seeder);
    // Sandboxes made ahead of need: create() of a new managed workspace with default memory takes one.
    void setWarmPool(WarmPool *pool);
    // Cloud sandboxes made ahead of need (cloudWarmSandboxes); outlives this.
    void setCloudWarmPool(CloudWarmPool *pool);
    // Runs before idle expiry destroys a sandbox (checkpointBeforeExpiry); see SandboxIdleExpiry.
    void setBeforeExpiry(std::function<void(const QString &sandboxId, std::function<void(const QString &note)> proceed)> hook);

    void create(const CreateRequest &request, Done done);
    std::optional<SandboxView> get(const QString &sandboxId) const;
    QList<SandboxView> list() const;
    // A page of sandbox_list (SandboxRepository::Page): the newest first pages, and how many there are.
    QList<SandboxView> listPage(const SandboxRepository::Page &page) const;
    int countListed() const;
    // Idempotent: a destroyed sandbox answers ok; a failed record is cleared too. `reason` is kept on
    // the destroyed record (e.g. idle expiry); empty for an explicit destroy. The DestroyGuard keeps the
    // work first; when it cannot, nothing is destroyed (exportFailed) unless `force`.
    void destroy(const QString &sandboxId, Done done, const QString &reason = {}, bool force = false);
    // Publishes (or returns the existing mapping of) a sandbox port; a different host address or
    // port than an existing mapping has is an error that says which one exists.
    void expose(const QString &sandboxId, const ExposeRequest &request, std::function<void(const ExposeOutcome &)> done);
    // Pause (the user's word for sleep): the VM stops, files are kept, the next tool call wakes it.
    // This is where "is it safe now" is decided: refused while the sandbox is being created,
    // destroyed or held for a job, and while commands run in it unless the request says they may
    // end (the refusal names them, so the caller can ask the user first). A sandbox asleep already is
    // ok (alreadyPaused). Answers on a later turn of the event loop.
    void pause(const PauseRequest &request, std::function<void(const PauseOutcome &)> done);
    // A running cloud sandbox's time-to-live, longer by cloudDefaultTtl (never past 24 h from its
    // creation); `done(error)` (empty: extended) runs once, later.
    void extendCloud(const QString &sandboxId, std::function<void(const QString &error)> done);
    // Calls back at once when sbx is available; otherwise reconciles first.
    void ensureAvailable(std::function<void(bool ok, const QString &error)> done);

    // SandboxResolver: one indexed read; renews the idle deadline (written at most once a second).
    // A stopped sandbox is woken (SandboxWaker).
    bool resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error) override;

    // `text` fit for a tool result (redactForAgent, SandboxPresenter.h): runtime names become the
    // sandbox id (or "<sandbox>"), managed workspace folders ~/workspace, data-directory paths a placeholder.
    QString publicText(const QString &text) const;
    // See SandboxWaker::checkHostFolder (an export of a sleeping clone starts its VM too).
    bool checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const;
    // Stops the sandbox's VM and holds it stopped for a job on it (`why`: "being checkpointed"):
    // running → stopped first (persisted, sessions lost, channel closed), then `sbx stop`; `done`
    // once that returned (when it failed, the job's next sbx command says why), with the runtime
    // name, or at once with a readable error (nothing held then). Until
    // release() a tool call does not wake it and destroy and sleep leave it alone.
    using HoldDone = std::function<void(bool ok, const QString &error, const QString &runtimeName)>;
    void holdStopped(const QString &sandboxId, const QString &why, HoldDone done);
    // holdStopped() without `sbx stop`: the record is stopped (sessions lost, channel closed) and the VM
    // left as it is, for a job whose own command stops it (`sbx move`).
    void holdMarkedStopped(const QString &sandboxId, const QString &why, HoldDone done);
    // A start-up job finishing what a crash interrupted holds the sandbox as it finds it (no state
    // change, no sbx command); false when someone else has it.
    bool holdAsIs(const QString &sandboxId, const QString &why);
    void release(const QString &sandboxId);
    // resolveRunning() for the job that holds the sandbox: wakes its VM (a restored clone gets its work
    // back) while the hold still keeps tool calls, sleep and destroy out.
    bool resolveHeld(const QString &sandboxId, RunningSandbox &out, QString &error);
    // A held sandbox's VM replaced by one made from `templateRef` (a checkpoint's), under the same
    // runtime name, with the same memory and workspace folder (a clone's made afresh from the host
    // repository: CloneCheckpointWork puts its work back): `sbx rm`, `sbx create --template`,
    // then `sbx stop` (the record stays stopped; the next tool call after release() starts it).
    // Safe to repeat: a runtime already gone is not an error. The caller persists its intent first.
    void replaceHeldRuntime(const QString &sandboxId, const QString &templateRef,
                            std::function<void(bool ok, const QString &error)> done);
    // The same for a held cloud sandbox and a cloud template (SandboxServiceCloud.cpp): `sbx --cloud
    // rm`, then `sbx --cloud create --template` under the same name (no agent, no size: the template
    // has them); the record is marked running, as the new one runs (with its memory and processes
    // when the template kept them). Safe to repeat.
    void replaceHeldCloudRuntime(const QString &sandboxId, const QString &templateName,
                                 std::function<void(bool ok, const QString &error)> done);
    QString heldFor(const QString &sandboxId) const;
    // A runtime no record names any more (a moved sandbox's source), local or in the cloud: removed,
    // and one already gone counts as removed.
    void removeUnusedRuntime(const QString &runtimeName, std::function<void(bool ok, const QString &error)> done);
    bool isSbxAvailable() const;
    // Sandboxes creating, running or destroying (what maxActiveSandboxes counts).
    int countActive() const;
    int countActiveInCloud() const;
    // What a cloud sandbox's time-to-live's end does on this account (SandboxRuntimeOps).
    bool cloudExpiryDeletes() const;
    // The workspaces sandboxes work on (a fork makes its managed workspace there).
    WorkspaceService &workspaces() const;

    // The jobs the runtime and the tests drive directly: reconciliation (start-up, availability,
    // shutdown), idle expiry, and sleep (SandboxSleep decides when).
    SandboxReconciler &reconciler() const { return *m_reconciler; }
    SandboxIdleExpiry &idleExpiry() const { return *m_idle; }
    SandboxSleeper &sleeper() const { return *m_sleeper; }

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
    // A running cloud sandbox expires at `expiresAtMs`, in minutes (cloudWarnBefore);
    // `atCeiling`: it cannot be extended (24 h from its creation).
    void cloudExpiryNear(const QString &sandboxId, qint64 expiresAtMs, bool atCeiling);

private:
    void hold(const QString &sandboxId, const QString &why, bool stopVm, HoldDone done);
    void createFromCloudTemplate(const QString &sandboxId, const SbxCloudCreateSpec &spec, int retries,
                                 std::function<void(bool ok, const QString &error)> done);

    // Declared in the order they are built; each job keeps references to those before it.
    std::unique_ptr<SandboxRuntimeOps> m_ops;
    std::unique_ptr<PortExposure> m_ports;
    std::unique_ptr<SandboxReconciler> m_reconciler;
    std::unique_ptr<SandboxCreator> m_creator;
    std::unique_ptr<SandboxDestroyer> m_destroyer;
    std::unique_ptr<SandboxIdleExpiry> m_idle;
    std::unique_ptr<SandboxWaker> m_waker;
    std::unique_ptr<SandboxSleeper> m_sleeper;
    std::unique_ptr<CloudTtlKeeper> m_cloudTtl;
};

} // namespace chat2sbx
