#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/channel/RuntimeAttacher.h"
#include "sandbox/lifecycle/WarmPool.h"
#include "sandbox/sbx/SbxDriver.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QPointer>

#include <memory>

namespace chat2sbx {

// ---- create ---------------------------------------------------------------------------------------

void SandboxService::create(const CreateRequest &request, Done done)
{
    auto failNow = [&done](const QString &error) {
        Outcome o;
        o.error = error;
        done(o);
    };
    if (!m_available)
        return failNow(QStringLiteral("sbx is not available: %1").arg(m_unavailableReason));

    std::optional<Workspace> workspace;
    QString error;
    if (request.workspaceId.isEmpty()) {
        // A new managed workspace can never reuse a sandbox: refuse before making a folder for nothing.
        if (m_config.maxActiveSandboxes > 0 && m_repo.countActive() >= m_config.maxActiveSandboxes)
            return failNow(limitError());
        if (m_warm && request.memory.isEmpty()) {
            SandboxRecord handed;
            bool attached = false, limitReached = false;
            if (m_warm->handOver(m_config.maxActiveSandboxes, idleMs(), handed, attached, limitReached)) {
                emit sandboxesChanged();
                if (!attached) {   // adopted after a restart: its VM may be asleep; attaching wakes it
                    m_creating.insert(handed.id, {std::move(done)});
                    return attachCreated(handed.id);
                }
                Outcome o;
                o.ok = true;
                o.view = viewOf(handed);
                return done(o);
            }
            if (limitReached)
                return failNow(limitError());
        }
        workspace = m_workspaces.createManaged(error);
        if (!workspace)
            return failNow(error);
    } else {
        workspace = m_workspaces.find(request.workspaceId);
        if (!workspace)
            return failNow(QStringLiteral("unknown workspace_id %1").arg(request.workspaceId));
        auto running = m_repo.findForWorkspace(workspace->id, SandboxState::Running);
        if (!running)   // asleep: reused as it is; the next tool call on it wakes it
            running = m_repo.findForWorkspace(workspace->id, SandboxState::Stopped);
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
            renewNow(running->id);
            m_workspaces.touch(workspace->id);
            Outcome o;
            o.ok = true;
            o.reused = true;
            o.view = viewOf(*m_repo.find(running->id));
            return done(o);
        }
        if (auto creating = m_repo.findForWorkspace(workspace->id, SandboxState::Creating);
            creating && m_creating.contains(creating->id)) {
            m_creating[creating->id].append([done](const Outcome &o) {
                Outcome copy = o;
                copy.reused = o.ok;
                done(copy);
            });
            return;
        }
    }

    // Armed first, so a swap of the folder between the check below and the end of `sbx create` is seen.
    const std::shared_ptr<FolderSwapWatch> swapWatch = m_workspaces.watchForMount(*workspace);
    // Trashed? Managed folder missing (recreated)? Host directory still the approved one?
    if (!m_workspaces.checkBeforeUse(*workspace, error))
        return failNow(error);

    const qint64 now = m_clock.nowMs();
    SandboxRecord r;
    r.id = newId("sbx_");
    r.workspaceId = workspace->id;
    r.runtimeName = kRuntimePrefix + randomHex(8);
    r.state = SandboxState::Creating;
    r.memory = request.memory;
    r.createdAt = r.updatedAt = r.lastActivityAt = now;
    r.idleDeadline = now + idleMs();
    bool limitReached = false;
    if (!m_repo.insertWithinLimit(r, m_config.maxActiveSandboxes, limitReached, error))
        return failNow(limitReached ? limitError() : error);
    m_workspaces.touch(workspace->id);
    m_creating.insert(r.id, {std::move(done)});
    emit sandboxesChanged();
    qCInfo(lcSandbox).noquote() << "creating" << r.id << "as" << r.runtimeName << "for" << r.workspaceId;

    SbxCreateSpec spec;
    spec.runtimeName = r.runtimeName;
    spec.templateRef = m_config.templateRef();
    spec.memory = r.memory;
    spec.clone = workspace->mode == WorkspaceMode::Clone;
    spec.workspaceRoot = workspace->hostPath;
    QPointer<SandboxService> self(this);
    const QString id = r.id;
    m_sbx.create(spec, [self, id, used = *workspace, swapWatch](const SbxResult &result) {
        if (!self)
            return;
        if (!result.ok)
            return self->failCreate(id, result.error);
        // Before anything runs in it: the VM must have got the approved folder.
        QString swapped;
        if (!self->m_workspaces.checkAfterCreate(used, swapWatch.get(), swapped))
            return self->failCreate(id, swapped);
        self->attachCreated(id);
    });
}

void SandboxService::attachCreated(const QString &id)
{
    const auto r = m_repo.find(id);
    if (!r || r->state != SandboxState::Creating) {
        // Destroyed while sbx create ran: make sure the runtime it just made goes too.
        const QString runtime = r ? r->runtimeName : QString();
        QPointer<SandboxService> self(this);
        removeRuntime(runtime, [self, id](bool, const QString &) {
            if (!self)
                return;
            Outcome o;
            o.error = QStringLiteral("sandbox %1 was destroyed while it was being created").arg(id);
            self->finishCreate(id, o);
        });
        return;
    }
    const RunningSandbox running = runningOf(*r, m_workspaces.find(r->workspaceId));
    QPointer<SandboxService> self(this);
    auto attached = [self, id](bool ok, const QString &error) {
        if (!self)
            return;
        if (!ok)
            return self->failCreate(id, QStringLiteral("the sandbox did not become ready: %1").arg(error));
        QString dbError;
        if (!self->m_repo.transition(id, SandboxState::Creating, SandboxState::Running, {}, self->m_clock.nowMs(), dbError)) {
            // Destroyed meanwhile (or the database refused): handled like a destroy during sbx create.
            if (!dbError.isEmpty())
                return self->failCreate(id, dbError);
            return self->attachCreated(id);
        }
        self->renewNow(id);
        emit self->sandboxesChanged();
        qCInfo(lcSandbox).noquote() << "sandbox" << id << "is running";
        Outcome o;
        o.ok = true;
        o.view = self->viewOf(*self->m_repo.find(id));
        self->finishCreate(id, o);
    };
    if (m_attacher) {
        m_attacher->attach(running, attached);
        return;
    }
    // No control channel wired in: a plain health check that the sandbox runs commands.
    SbxExecSpec check;
    check.runtimeName = r->runtimeName;
    check.command = {QStringLiteral("bash"), QStringLiteral("-lc"), QStringLiteral("echo ok")};
    m_sbx.exec(check, [attached](const SbxResult &result) {
        if (!result.ok)
            return attached(false, QStringLiteral("health check failed: %1").arg(result.error));
        if (result.out.trimmed() != "ok")
            return attached(false, QStringLiteral("health check printed unexpected output"));
        attached(true, {});
    });
}

void SandboxService::failCreate(const QString &id, const QString &reason)
{
    qCWarning(lcSandbox).noquote() << "creating" << id << "failed:" << reason;
    const auto r = m_repo.find(id);
    if (isTemplateMissing(reason, m_config.templateRef()))
        return dropForMissingTemplate(id, r ? r->runtimeName : QString());
    // Persist the failure first, so a crash during the clean-up still leaves the visible record.
    if (r && r->state == SandboxState::Creating)
        persist(id, SandboxState::Failed, reason);
    if (m_attacher)
        m_attacher->detach(id);
    QPointer<SandboxService> self(this);
    removeRuntime(r ? r->runtimeName : QString(), [self, id, reason](bool ok, const QString &rmError) {
        if (!self)
            return;
        QString full = reason;
        if (!ok) {
            full += QStringLiteral(" (removing the partial runtime failed too: %1; sandbox_destroy retries)").arg(rmError);
            const auto now = self->m_repo.find(id);
            if (now && now->state == SandboxState::Failed)
                self->persist(id, SandboxState::Failed, full);
        }
        Outcome o;
        o.error = QStringLiteral("sandbox %1 could not be created: %2. It stays listed as failed until sandbox_destroy removes it")
                      .arg(id, full);
        if (const auto rec = self->m_repo.find(id))
            o.view = self->viewOf(*rec);
        self->finishCreate(id, o);
    });
}

bool SandboxService::isTemplateMissing(const QString &createError, const QString &templateRef)
{
    // sbx-contract.md: an unknown --template is treated as a registry pull that fails with
    // `403 Forbidden: pull failed for image "<ref>"`.
    return createError.contains(QLatin1String("pull failed for image")) && createError.contains(templateRef);
}

void SandboxService::dropForMissingTemplate(const QString &id, const QString &runtimeName)
{
    // Not the sandbox's failure but the host's set-up: nothing is left listed as failed.
    const QString reason = templateMissingMessage();
    emit templateMissing();
    if (const auto r = m_repo.find(id); r && r->state == SandboxState::Creating)
        persist(id, SandboxState::Destroyed, reason);
    if (m_attacher)
        m_attacher->detach(id);
    emit sandboxesChanged();
    QPointer<SandboxService> self(this);
    removeRuntime(runtimeName, [self, id, reason](bool, const QString &) {
        if (!self)
            return;
        Outcome o;
        o.error = QStringLiteral("%1; ask the user to run `chat2sbx setup` on their computer, then call sandbox_create again")
                      .arg(reason);
        self->finishCreate(id, o);
    });
}

QString SandboxService::templateMissingMessage() const
{
    return QStringLiteral("template missing: the sandbox template %1 is not in `sbx template ls` (run `chat2sbx setup`)")
        .arg(m_config.templateRef());
}

void SandboxService::finishCreate(const QString &id, const Outcome &outcome)
{
    emit createFinished(outcome.error);
    const QList<Done> waiters = m_creating.take(id);
    for (const Done &d : waiters)
        if (d)
            d(outcome);
}

} // namespace chat2sbx
