// SandboxCreator's cloud path: a sandbox in Docker's cloud (`sbx --cloud`, reference/sbx-cloud.md).
#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "config/Config.h"
#include "sandbox/lifecycle/CloneSeeder.h"
#include "sandbox/lifecycle/CloudWarmPool.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>

namespace chat2sbx {

void SandboxCreator::createInCloud(const SandboxCreateRequest &request, SandboxDone done)
{
    const auto failNow = [&done](const QString &error) {
        SandboxOutcome o;
        o.error = error;
        done(o);
    };
    const Config &config = m_ops.config();
    SandboxRepository &repo = m_ops.records();
    if (!config.cloudSandboxes)
        return failNow(QStringLiteral("cloud sandboxes are off (cloudSandboxes, CHAT2SBX_CLOUD_SANDBOXES): they run in Docker's "
                                      "cloud and are billed per second while they run. The user turns them on with "
                                      "\"cloudSandboxes\": true in config.json; until then, create a local sandbox"));
    std::optional<Workspace> clone;
    if (!request.workspaceId.isEmpty()) {
        clone = m_ops.workspaces().find(request.workspaceId);
        if (!clone)
            return failNow(QStringLiteral("unknown workspace_id %1").arg(request.workspaceId));
        if (clone->mode == WorkspaceMode::Direct)
            return failNow(QStringLiteral("workspace %1 is the user's own folder on this computer (direct mode): a cloud sandbox "
                                          "has no host mount, so it cannot work on it. Ask for the folder in mode clone "
                                          "(workspace_request), or create a local sandbox for it")
                               .arg(clone->id));
        if (clone->mode != WorkspaceMode::Clone)
            return failNow(QStringLiteral("a cloud sandbox starts with its own scratch workspace in its VM: call sandbox_create with "
                                          "placement cloud and no workspace_id"));
        if (!m_seeder)
            return failNow(QStringLiteral("a clone workspace cannot be carried into the cloud from here: create it through "
                                          "`chat2sbx serve`"));
        if (!request.alongside) {
            // The workspace's cloud sandbox is reused as a local one is; a fork asks for a second.
            std::optional<SandboxRecord> mine = repo.findForWorkspace(clone->id, SandboxState::Running);
            if (!mine || !mine->isCloud())
                mine = repo.findForWorkspace(clone->id, SandboxState::Stopped);
            if (mine && mine->isCloud())
                return answerReused(mine->id, clone->id, done);
        }
        QString why;
        if (!m_ops.workspaces().checkBeforeUse(*clone, why))
            return failNow(why);
    }
    if (!request.memory.isEmpty())
        return failNow(QStringLiteral("memory does not apply in the cloud: choose a size (micro 1 CPU/2 GiB, small 2/4, medium "
                                      "4/8, large 8/16, xl 16/32)"));
    const QString size = request.size.isEmpty() ? QStringLiteral("small") : request.size;
    if (sbxCloudSizeRank(size) < 0)
        return failNow(QStringLiteral("unknown size %1: micro, small, medium, large or xl").arg(size));
    if (sbxCloudSizeRank(size) > sbxCloudSizeRank(config.cloudMaxSize))
        return failNow(QStringLiteral("size %1 is larger than the user allows (cloudMaxSize %2, CHAT2SBX_CLOUD_MAX_SIZE): "
                                      "choose %2 or smaller").arg(size, config.cloudMaxSize));
    const qint64 ttl = request.ttlSeconds > 0 ? request.ttlSeconds : config.cloudDefaultTtlSeconds;
    if (ttl > kSbxCloudMaxTtlSeconds)
        return failNow(QStringLiteral("a cloud sandbox lives at most 24 hours from its creation: ask for a ttl of 24h or less"));
    int activeInCloud = 0;
    for (const SandboxRecord &r : repo.listCloud())
        activeInCloud += r.isActive() ? 1 : 0;
    if (activeInCloud >= config.cloudMaxSandboxes)
        return failNow(QStringLiteral("the limit of %1 active cloud sandboxes (cloudMaxSandboxes, CHAT2SBX_CLOUD_MAX_SANDBOXES) is "
                                      "reached: destroy one with sandbox_destroy first").arg(config.cloudMaxSandboxes));

    if (CloudWarmPool *warm = m_ops.cloudWarmPool();
        warm && !clone && request.templateRef.isEmpty() && request.ttlSeconds <= 0 && (request.size.isEmpty() || request.size == QLatin1String("small"))) {
        SandboxRecord handed;
        bool limitReached = false;
        if (warm->handOver(config.maxActiveSandboxes, m_ops.idleMs(), handed, limitReached)) {
            emit m_ops.sandboxesChanged();
            m_creating.insert(handed.id, {std::move(done)});
            return attachCreated(handed.id);
        }
        if (limitReached)
            return failNow(limitError());
    }
    QString error;
    // A clone's work lives in the VM: no folder of this computer is made for it.
    const std::optional<Workspace> workspace = clone ? clone : m_ops.workspaces().createManaged(error, false);
    if (!workspace)
        return failNow(error);
    SandboxRecord r = newRecord(workspace->id, kCloudRuntimePrefix);
    r.placement = QStringLiteral("cloud");
    r.cloudSize = size;
    r.expiresAt = r.createdAt + ttl * 1000;   // until the cloud says it (read back once made)
    r.expiresCeilingAt = r.createdAt + kSbxCloudMaxTtlSeconds * 1000;
    bool limitReached = false;
    // Recorded before the cloud is asked: a crash during the create leaves a record the next start
    // finds, and its runtime name, which the cloud lists, so nothing is left running unseen.
    if (!repo.insertWithinLimit(r, config.maxActiveSandboxes, limitReached, error))
        return failNow(limitReached ? limitError() : error);
    m_ops.workspaces().touch(workspace->id);
    m_creating.insert(r.id, {std::move(done)});
    if (clone && request.templateRef.isEmpty()) {   // a cloud template (a fork) holds the clone's work already
        // Once the VM answers: the repository's checked-out commit goes in, before the sandbox runs.
        CloneSeeder *seeder = m_seeder;
        const Workspace w = *clone;
        m_prepare.insert(r.id, [seeder, w](const RunningSandbox &running, std::function<void(bool, const QString &)> seeded) {
            seeder->seed(running, w, std::move(seeded));
        });
    }
    emit m_ops.sandboxesChanged();
    qCInfo(lcSandbox).noquote() << "creating" << r.id << "in Docker's cloud as" << r.runtimeName << "(" << size << ", ttl" << ttl << "s)";
    SbxCloudCreateSpec spec;
    spec.name = r.runtimeName;
    spec.size = size;
    spec.templateName = request.templateRef;   // a cloud checkpoint's (a fork): it supplies the size
    spec.ttlSeconds = ttl;
    spec.onTimeout = QStringLiteral("stop");   // expiry keeps its files where the account can stop
    createCloudRuntime(r.id, spec, false);
}

void SandboxCreator::createCloudRuntime(const QString &id, const SbxCloudCreateSpec &spec, bool retried)
{
    QPointer<SandboxCreator> self(this);
    m_ops.sbx().cloudCreate(spec, [self, id, spec, retried](const SbxResult &result, const QString &) {
        if (!self)
            return;
        if (!result.ok) {
            // An account that cannot stop sandboxes refuses --on-timeout stop: made again with the
            // server's default, where expiry deletes (logged; the reconciler marks it gone then).
            if (!retried && !spec.onTimeout.isEmpty() && result.error.contains(QLatin1String("on-timeout"))) {
                SbxCloudCreateSpec plain = spec;
                plain.onTimeout.clear();
                qCWarning(lcSandbox).noquote() << "this Docker account cannot stop cloud sandboxes: when the time-to-live of"
                                               << id << "ends, Docker's cloud deletes it and its files";
                self->m_ops.noteCloudExpiryDeletes(true);
                return self->createCloudRuntime(id, plain, true);
            }
            return self->failCreate(id, result.error);
        }
        if (!spec.onTimeout.isEmpty())
            self->m_ops.noteCloudExpiryDeletes(false);   // it stops: the account can (again)
        const auto r = self->m_ops.records().find(id);
        const QString runtime = r ? r->runtimeName : spec.name;
        self->m_ops.recordCloudExpiry(id, runtime, [self, id] {
            if (self)
                self->attachCreated(id);
        });
    });
}

} // namespace chat2sbx
