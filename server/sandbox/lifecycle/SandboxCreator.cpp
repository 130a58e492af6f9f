#include "sandbox/lifecycle/SandboxCreator.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxRuntimeOps.h"
#include "sandbox/lifecycle/WarmPool.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>

#include <memory>

namespace chat2sbx {

namespace {

// `sbx create` failed because the pinned template is not on this host (sbx-contract.md, create row).
bool isTemplateMissing(const QString &createError, const QString &templateRef)
{
    // sbx-contract.md: an unknown --template is treated as a registry pull that fails with
    // `403 Forbidden: pull failed for image "<ref>"`.
    return createError.contains(QLatin1String("pull failed for image")) && createError.contains(templateRef);
}

} // namespace

SandboxCreator::SandboxCreator(SandboxRuntimeOps &ops, const SandboxReconciler &reconciler, QObject *parent)
    : QObject(parent), m_ops(ops), m_reconciler(reconciler)
{
}

SandboxRecord SandboxCreator::newRecord(const QString &workspaceId, const QString &runtimePrefix) const
{
    const qint64 now = m_ops.clock().nowMs();
    SandboxRecord r;
    r.id = newId("sbx_");
    r.workspaceId = workspaceId;
    r.runtimeName = runtimePrefix + randomHex(8);
    r.state = SandboxState::Creating;
    r.createdAt = r.updatedAt = r.lastActivityAt = now;
    r.idleDeadline = now + m_ops.idleMs();
    return r;
}

QString SandboxCreator::limitError() const
{
    return QStringLiteral("the limit of %1 active sandboxes (maxActiveSandboxes, CHAT2SBX_MAX_ACTIVE_SANDBOXES) is reached; "
                          "destroy one with sandbox_destroy or reuse one by passing its workspace_id")
        .arg(m_ops.config().maxActiveSandboxes);
}

void SandboxCreator::create(const SandboxCreateRequest &request, SandboxDone done)
{
    auto failNow = [&done](const QString &error) {
        SandboxOutcome o;
        o.error = error;
        done(o);
    };
    if (request.placement == QLatin1String("cloud"))
        return createInCloud(request, std::move(done));
    if (!m_reconciler.isSbxAvailable())
        return failNow(m_reconciler.unavailableError());
    const Config &config = m_ops.config();
    SandboxRepository &repo = m_ops.records();
    WorkspaceService &workspaces = m_ops.workspaces();

    std::optional<Workspace> workspace;
    QString error;
    if (request.workspaceId.isEmpty()) {
        // A new managed workspace can never reuse a sandbox: refuse before making a folder for nothing.
        if (config.maxActiveSandboxes > 0 && repo.countActive() >= config.maxActiveSandboxes)
            return failNow(limitError());
        if (WarmPool *warm = m_ops.warmPool(); warm && request.memory.isEmpty() && request.templateRef.isEmpty()) {
            SandboxRecord handed;
            bool attached = false, limitReached = false;
            if (warm->handOver(config.maxActiveSandboxes, m_ops.idleMs(), handed, attached, limitReached)) {
                emit m_ops.sandboxesChanged();
                if (!attached) {   // adopted after a restart: its VM may be asleep; attaching wakes it
                    m_creating.insert(handed.id, {std::move(done)});
                    return attachCreated(handed.id);
                }
                SandboxOutcome o;
                o.ok = true;
                o.view = m_ops.viewOf(handed);
                return done(o);
            }
            if (limitReached)
                return failNow(limitError());
        }
        workspace = workspaces.createManaged(error);
        if (!workspace)
            return failNow(error);
    } else {
        workspace = workspaces.find(request.workspaceId);
        if (!workspace)
            return failNow(QStringLiteral("unknown workspace_id %1").arg(request.workspaceId));
        if (request.alongside && workspace->mode != WorkspaceMode::Clone)
            return failNow(QStringLiteral("workspace %1 is not a clone: a second sandbox would share its folder").arg(workspace->id));
    }
    if (!request.workspaceId.isEmpty() && !request.alongside) {
        auto running = repo.findForWorkspace(workspace->id, SandboxState::Running);
        if (!running)   // asleep: reused as it is; the next tool call on it wakes it
            running = repo.findForWorkspace(workspace->id, SandboxState::Stopped);
        if (running) {
            // The seed's rule: a running VM cannot change its memory, and ignoring the request would
            // leave the agent believing it got what it asked for.
            if (!request.memory.isEmpty() && request.memory != running->memory)
                return failNow(QStringLiteral("sandbox %1 of this workspace is already running with %2 of memory, not %3; "
                                              "call sandbox_create without memory to reuse it, or sandbox_destroy it "
                                              "first to get a sandbox with %3")
                                   .arg(running->id, running->memory.isEmpty() ? QStringLiteral("the default amount")
                                                                               : running->memory,
                                        request.memory));
            return answerReused(running->id, workspace->id, done);
        }
        if (auto creating = repo.findForWorkspace(workspace->id, SandboxState::Creating);
            creating && m_creating.contains(creating->id)) {
            m_creating[creating->id].append([done](const SandboxOutcome &o) {
                SandboxOutcome copy = o;
                copy.reused = o.ok;
                done(copy);
            });
            return;
        }
    }

    // Armed first, so a swap of the folder between the check below and the end of `sbx create` is seen.
    const std::shared_ptr<FolderSwapWatch> swapWatch = workspaces.watchForMount(*workspace);
    // Trashed? Managed folder missing (recreated)? Host directory still the approved one?
    if (!workspaces.checkBeforeUse(*workspace, error))
        return failNow(error);

    SandboxRecord r = newRecord(workspace->id, kRuntimePrefix);
    r.memory = request.memory;
    r.templateRef = request.templateRef.isEmpty() ? config.templateRef() : request.templateRef;
    bool limitReached = false;
    if (!repo.insertWithinLimit(r, config.maxActiveSandboxes, limitReached, error))
        return failNow(limitReached ? limitError() : error);
    workspaces.touch(workspace->id);
    m_creating.insert(r.id, {std::move(done)});
    if (request.prepare)
        m_prepare.insert(r.id, request.prepare);
    emit m_ops.sandboxesChanged();
    qCInfo(lcSandbox).noquote() << "creating" << r.id << "as" << r.runtimeName << "for" << r.workspaceId;

    SbxCreateSpec spec;
    spec.runtimeName = r.runtimeName;
    spec.templateRef = r.templateRef;
    spec.memory = r.memory;
    spec.clone = workspace->mode == WorkspaceMode::Clone;
    spec.workspaceRoot = workspace->hostPath;
    QPointer<SandboxCreator> self(this);
    const QString id = r.id;
    m_ops.sbx().create(spec, [self, id, used = *workspace, swapWatch](const SbxResult &result) {
        if (!self)
            return;
        if (!result.ok)
            return self->failCreate(id, result.error);
        // Before anything runs in it: the VM must have got the approved folder.
        QString swapped;
        if (!self->m_ops.workspaces().checkAfterCreate(used, swapWatch.get(), swapped))
            return self->failCreate(id, swapped);
        self->attachCreated(id);
    });
}

void SandboxCreator::answerReused(const QString &sandboxId, const QString &workspaceId, const SandboxDone &done)
{
    m_ops.renewNow(sandboxId);
    m_ops.workspaces().touch(workspaceId);
    SandboxOutcome o;
    o.ok = true;
    o.reused = true;
    o.view = m_ops.viewOf(*m_ops.records().find(sandboxId));
    done(o);
}

void SandboxCreator::attachCreated(const QString &id)
{
    const auto r = m_ops.records().find(id);
    if (!r || r->state != SandboxState::Creating) {
        // Destroyed while sbx create ran: make sure the runtime it just made goes too.
        const QString runtime = r ? r->runtimeName : QString();
        QPointer<SandboxCreator> self(this);
        m_ops.removeRuntime(runtime, [self, id](bool, const QString &) {
            if (!self)
                return;
            SandboxOutcome o;
            o.error = QStringLiteral("sandbox %1 was destroyed while it was being created").arg(id);
            self->finishCreate(id, o);
        });
        return;
    }
    const RunningSandbox running = m_ops.runningOf(*r, m_ops.workspaces().find(r->workspaceId));
    QPointer<SandboxCreator> self(this);
    auto attached = [self, id](bool ok, const QString &error) {
        if (!self)
            return;
        if (!ok)
            return self->failCreate(id, QStringLiteral("the sandbox did not become ready: %1").arg(error));
        const auto prepare = self->m_prepare.take(id);
        const auto record = self->m_ops.records().find(id);
        if (!prepare || !record)
            return self->becomeRunning(id);
        prepare(self->m_ops.runningOf(*record, self->m_ops.workspaces().find(record->workspaceId)),
                [self, id](bool prepared, const QString &why) {
                    if (!self)
                        return;
                    if (!prepared)
                        return self->failCreate(id, why);
                    self->becomeRunning(id);
                });
    };
    if (RuntimeAttacher *attacher = m_ops.attacher()) {
        attacher->attach(running, attached);
        return;
    }
    // No control channel wired in: a plain health check that the sandbox runs commands.
    SbxExecSpec check;
    check.runtimeName = r->runtimeName;
    check.command = {QStringLiteral("echo"), QStringLiteral("ok")};
    m_ops.sbx().exec(check, [attached](const SbxResult &result) {
        if (!result.ok)
            return attached(false, QStringLiteral("health check failed: %1").arg(result.error));
        if (result.out.trimmed() != "ok")
            return attached(false, QStringLiteral("health check printed unexpected output"));
        attached(true, {});
    });
}

void SandboxCreator::becomeRunning(const QString &id)
{
    QString dbError;
    const qint64 now = m_ops.clock().nowMs();
    if (!m_ops.records().transition(id, SandboxState::Creating, SandboxState::Running, {}, now, dbError)) {
        // Destroyed meanwhile (or the database refused): handled like a destroy during sbx create.
        if (!dbError.isEmpty())
            return failCreate(id, dbError);
        return attachCreated(id);
    }
    m_ops.renewNow(id);
    emit m_ops.sandboxesChanged();
    qCInfo(lcSandbox).noquote() << "sandbox" << id << "is running";
    SandboxOutcome o;
    o.ok = true;
    o.view = m_ops.viewOf(*m_ops.records().find(id));
    finishCreate(id, o);
}

void SandboxCreator::failCreate(const QString &id, const QString &reason)
{
    qCWarning(lcSandbox).noquote() << "creating" << id << "failed:" << reason;
    const auto r = m_ops.records().find(id);
    if (isTemplateMissing(reason, m_ops.config().templateRef()))
        return dropForMissingTemplate(id, r ? r->runtimeName : QString());
    // Persist the failure first, so a crash during the clean-up still leaves the visible record.
    if (r && r->state == SandboxState::Creating)
        m_ops.persist(id, SandboxState::Failed, reason);
    m_ops.detach(id);
    QPointer<SandboxCreator> self(this);
    m_ops.removeRuntime(r ? r->runtimeName : QString(), [self, id, reason](bool ok, const QString &rmError) {
        if (!self)
            return;
        QString full = reason;
        if (!ok) {
            full += QStringLiteral(" (removing the partial runtime failed too: %1; sandbox_destroy retries)").arg(rmError);
            const auto now = self->m_ops.records().find(id);
            if (now && now->state == SandboxState::Failed)
                self->m_ops.persist(id, SandboxState::Failed, full);
        }
        SandboxOutcome o;
        o.error = QStringLiteral("sandbox %1 could not be created: %2. It stays listed as failed until sandbox_destroy removes it")
                      .arg(id, full);
        if (const auto rec = self->m_ops.records().find(id))
            o.view = self->m_ops.viewOf(*rec);
        self->finishCreate(id, o);
    });
}

void SandboxCreator::dropForMissingTemplate(const QString &id, const QString &runtimeName)
{
    // Not the sandbox's failure but the host's set-up: nothing is left listed as failed.
    const QString reason = templateMissingMessage();
    emit templateMissing();
    if (const auto r = m_ops.records().find(id); r && r->state == SandboxState::Creating)
        m_ops.persist(id, SandboxState::Destroyed, reason);
    m_ops.detach(id);
    emit m_ops.sandboxesChanged();
    QPointer<SandboxCreator> self(this);
    m_ops.removeRuntime(runtimeName, [self, id, reason](bool, const QString &) {
        if (!self)
            return;
        SandboxOutcome o;
        o.error = QStringLiteral("%1; ask the user to run `chat2sbx setup` on their computer, then call sandbox_create again")
                      .arg(reason);
        self->finishCreate(id, o);
    });
}

QString SandboxCreator::templateMissingMessage() const
{
    return QStringLiteral("template missing: the sandbox template %1 is not in `sbx template ls` (run `chat2sbx setup`)")
        .arg(m_ops.config().templateRef());
}

void SandboxCreator::finishCreate(const QString &id, const SandboxOutcome &outcome)
{
    emit createFinished(outcome.error);
    m_prepare.remove(id);
    const QList<SandboxDone> waiters = m_creating.take(id);
    for (const SandboxDone &d : waiters)
        if (d)
            d(outcome);
}

} // namespace chat2sbx
