#pragma once

#include "config/Config.h"
#include "sandbox/channel/SandboxResolver.h"
#include "state/BashSessionRepository.h"
#include "state/SandboxRepository.h"
#include "state/SettingsRepository.h"
#include "state/Workspace.h"

#include <QHash>
#include <QObject>
#include <QSet>

#include <functional>
#include <optional>

namespace chat2sbx {

class Clock;
class CloudWarmPool;
class Database;
class RuntimeAttacher;
class SbxDriver;
class WarmPool;
class WorkspaceService;

// What the lifecycle jobs (creation, destroy, wake, sleep, idle expiry, reconciliation) share: the
// sandbox records and their bash sessions, the sbx driver, the control-channel attacher and the warm
// pool, and the runtime operations every job does the same way: persist a state transition, renew
// an idle deadline, remove or stop a runtime, mark bash sessions lost, view a record.
class SandboxRuntimeOps : public QObject {
    Q_OBJECT
public:
    SandboxRuntimeOps(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx, Clock &clock,
                      QObject *parent = nullptr);

    const Config &config() const { return m_config; }
    WorkspaceService &workspaces() const { return m_workspaces; }
    SbxDriver &sbx() const { return m_sbx; }
    Clock &clock() const { return m_clock; }
    SandboxRepository &records() { return m_repo; }
    const SandboxRepository &records() const { return m_repo; }
    const BashSessionRepository &sessions() const { return m_sessions; }
    qint64 idleMs() const { return m_config.sandboxIdleSeconds * 1000; }

    void setAttacher(RuntimeAttacher *attacher) { m_attacher = attacher; }
    RuntimeAttacher *attacher() const { return m_attacher; }
    // Closes the sandbox's control channel, when one is wired in.
    void detach(const QString &sandboxId);
    void setWarmPool(WarmPool *pool) { m_warm = pool; }
    WarmPool *warmPool() const { return m_warm; }
    void setCloudWarmPool(CloudWarmPool *pool) { m_cloudWarm = pool; }
    CloudWarmPool *cloudWarmPool() const { return m_cloudWarm; }

    SandboxView viewOf(const SandboxRecord &r) const;
    RunningSandbox runningOf(const SandboxRecord &r, const std::optional<Workspace> &w) const;
    // The same from the workspace's folder and whether it is managed (SandboxService::resolveRunning
    // reads them with the record, in one query). A cloud sandbox's workspace is ~/workspace in its VM.
    static RunningSandbox runningOf(const SandboxRecord &r, const QString &workspacePath, bool managedWorkspace);

    void persist(const QString &id, SandboxState state, const QString &reason);
    void renewNow(const QString &id);
    void markSessionsLost(const QString &id, const QString &reason, qint64 startedBefore);
    // `sbx rm`; ok also when it failed but `sbx ls` no longer lists the runtime.
    void removeRuntime(const QString &runtimeName, std::function<void(bool ok, const QString &error)> done);
    void stopRuntime(const QString &id, const QString &runtimeName, std::function<void()> finished = nullptr);
    // A cloud sandbox just made: its expiry and 24 h ceiling as `sbx --cloud ttl` says them, into the
    // record (one sbx cannot read is logged and left as it was), then `then`.
    void recordCloudExpiry(const QString &id, const QString &runtimeName, std::function<void()> then);
    // Its `sbx stop` (a sleep, a refused wake, an interrupted sleep finished) has not returned yet.
    bool isStopping(const QString &id) const { return m_stopsInFlight.contains(id); }
    // A stopped sandbox held for a job on its VM (a checkpoint's `sbx template save`): not woken, not
    // destroyed, not put to sleep until released. `why` completes "sandbox X is …" in refusals.
    void hold(const QString &id, const QString &why) { m_holds.insert(id, why); }
    void release(const QString &id) { m_holds.remove(id); }
    QString heldFor(const QString &id) const { return m_holds.value(id); }
    // The Docker account cannot stop cloud sandboxes (`--on-timeout stop` refused): their time-to-live's
    // end deletes them, files and all. Learnt from a create and kept across restarts (settings).
    bool cloudExpiryDeletes() const;
    void noteCloudExpiryDeletes(bool deletes);

signals:
    // A record changed; every job emits it, SandboxService passes it on as its sandboxesChanged.
    void sandboxesChanged();

private:
    // Outlive this: Services (runtime/Services.h) owns them, declared before this. Config: Controller's member.
    const Config &m_config;
    WorkspaceService &m_workspaces;
    SbxDriver &m_sbx;
    Clock &m_clock;
    SandboxRepository m_repo;
    BashSessionRepository m_sessions;
    SettingsRepository m_settings;
    mutable std::optional<bool> m_cloudExpiryDeletes;   // read once, then kept with each write
    RuntimeAttacher *m_attacher = nullptr;
    WarmPool *m_warm = nullptr;
    CloudWarmPool *m_cloudWarm = nullptr;
    QSet<QString> m_stopsInFlight;   // `sbx stop` of these sandboxes runs
    QHash<QString, QString> m_holds;  // held sandboxes and why (in memory: a restart ends every job)
};

} // namespace chat2sbx
