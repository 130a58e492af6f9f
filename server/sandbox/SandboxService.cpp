#include "sandbox/SandboxService.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/DestroyGuard.h"
#include "sandbox/PortExposure.h"
#include "sandbox/ReconcilePlan.h"
#include "sandbox/RuntimeAttacher.h"
#include "sandbox/SandboxPresenter.h"
#include "sandbox/SbxDriver.h"
#include "sandbox/StopReasons.h"
#include "sandbox/WarmPool.h"
#include "state/Database.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>
#include <QSet>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <sys/stat.h>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSandbox, "chat2sbx.sandbox")

namespace {

const QString kRuntimePrefix = QStringLiteral("chat2sbx-");

QString newRuntimeName()
{
    return kRuntimePrefix + randomHex(8);
}

} // namespace

SandboxService::SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx,
                               Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_workspaces(workspaces), m_sbx(sbx), m_clock(clock), m_repo(db), m_sessions(db),
      m_ports(std::make_unique<PortExposure>(db, *this, sbx))
{
    connect(m_ports.get(), &PortExposure::portsChanged, this, &SandboxService::sandboxesChanged);
    m_idleTimer.setInterval(static_cast<int>(std::clamp<qint64>(idleMs() / 4, 500, 60000)));
    connect(&m_idleTimer, &QTimer::timeout, this, &SandboxService::checkIdle);
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, [this] { reconcile(nullptr); });
}

SandboxService::~SandboxService() = default;

void SandboxService::setIdleCheckIntervalMs(int ms)
{
    m_idleTimer.setInterval(ms);
}

// ---- views and text -------------------------------------------------------------------------------

SandboxView SandboxService::viewOf(const SandboxRecord &r) const
{
    SandboxView v;
    v.record = r;
    v.workspace = m_workspaces.find(r.workspaceId);
    v.ports = m_repo.ports(r.id);
    return v;
}

std::optional<SandboxView> SandboxService::get(const QString &sandboxId) const
{
    if (auto r = m_repo.find(sandboxId))
        return viewOf(*r);
    return std::nullopt;
}

QList<SandboxView> SandboxService::list() const
{
    return m_repo.listViews();
}

QString SandboxService::publicText(const QString &text) const
{
    return redactForAgent(text, m_config, [this] { return m_repo.list(true); });
}

QString SandboxService::limitError() const
{
    return QStringLiteral("the limit of %1 active sandboxes (maxActiveSandboxes, CHAT2SBX_MAX_ACTIVE_SANDBOXES) is reached; "
                          "destroy one with sandbox_destroy or reuse one by passing its workspace_id")
        .arg(m_config.maxActiveSandboxes);
}

void SandboxService::persist(const QString &id, SandboxState state, const QString &reason)
{
    QString error;
    if (!m_repo.setState(id, state, reason, m_clock.nowMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot record state" << sandboxStateName(state) << "for" << id << ":" << error;
    emit sandboxesChanged();
}

void SandboxService::renewNow(const QString &id)
{
    const qint64 now = m_clock.nowMs();
    QString error;
    if (!m_repo.renew(id, now, now + idleMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot renew" << id << ":" << error;
}

RunningSandbox SandboxService::runningOf(const SandboxRecord &r, const std::optional<Workspace> &w) const
{
    RunningSandbox s;
    s.sandboxId = r.id;
    s.runtimeName = r.runtimeName;
    if (w) {
        s.workspacePath = w->hostPath;
        s.managedWorkspace = w->isManaged();
    }
    return s;
}

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
    r.runtimeName = newRuntimeName();
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
        // Before anything runs in it: the VM must have got the approved folder (issue 22, mount race).
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

// ---- destroy --------------------------------------------------------------------------------------

void SandboxService::removeRuntime(const QString &runtimeName, std::function<void(bool, const QString &)> done)
{
    if (runtimeName.isEmpty())
        return done(true, {});
    QPointer<SandboxService> self(this);
    m_sbx.remove(runtimeName, [self, runtimeName, done](const SbxResult &r) {
        if (!self)
            return;
        if (r.ok)
            return done(true, {});
        // `rm` of a runtime that is already gone may fail; what counts is that `sbx ls` lacks it.
        self->m_sbx.list([runtimeName, done, rmError = r.error](const SbxResult &lr, const QList<SbxRuntimeInfo> &items) {
            if (!lr.ok)
                return done(false, rmError);
            for (const SbxRuntimeInfo &i : items)
                if (i.name == runtimeName)
                    return done(false, rmError);
            done(true, {});
        });
    });
}

void SandboxService::destroy(const QString &sandboxId, Done done, const QString &reason, bool force)
{
    const auto r = m_repo.find(sandboxId);
    if (!r) {
        Outcome o;
        o.error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return done ? done(o) : void();
    }
    if (r->state == SandboxState::Destroyed) {
        Outcome o;
        o.ok = true;
        o.view = viewOf(*r);
        return done ? done(o) : void();
    }
    if (m_destroying.contains(sandboxId)) {
        m_destroying[sandboxId].append(std::move(done));
        return;
    }
    if (!m_available) {
        Outcome o;
        o.error = QStringLiteral("sbx is not available: %1").arg(m_unavailableReason);
        return done ? done(o) : void();
    }
    m_destroying.insert(sandboxId, {std::move(done)});
    // A stopped sandbox's files are all there: the guard's first request wakes it to keep its work.
    if (!m_guard || (r->state != SandboxState::Running && r->state != SandboxState::Stopped))
        return removeAfterGuard(sandboxId, reason, {}, {});
    // Keep the work first (a clone sandbox's commits and edits become a host branch); the sandbox
    // stays running meanwhile, so a refusal leaves it exactly as it was.
    QPointer<SandboxService> self(this);
    m_guard->secureWork(viewOf(*r), [self, sandboxId, reason, force](const DestroyGuard::Outcome &g) {
        if (!self)
            return;
        if (g.ok) {
            if (!g.branch.isEmpty()) {
                qCInfo(lcSandbox).noquote() << "sandbox" << sandboxId << ":" << g.summary;
                emit self->workKept(sandboxId, g.branch, g.summary);
            }
            return self->removeAfterGuard(sandboxId, reason, g.branch, g.branch.isEmpty() ? QString() : g.summary);
        }
        if (force) {
            qCWarning(lcSandbox).noquote() << "sandbox" << sandboxId << "destroyed with force although its work could not be kept:"
                                           << g.error;
            return self->removeAfterGuard(sandboxId, reason, {},
                                          QStringLiteral("its work could not be kept and was discarded (force): %1").arg(g.error));
        }
        qCWarning(lcSandbox).noquote() << "not destroying" << sandboxId << "because its work could not be kept:" << g.error;
        Outcome o;
        o.exportFailed = true;
        o.exportError = g.error;
        o.error = QStringLiteral("sandbox %1 was not destroyed: its work (commits and uncommitted changes in the clone) could not be "
                                 "saved to the host repository first: %2. Nothing was lost; fix the cause and try again, or call "
                                 "sandbox_destroy with force: true to discard that work")
                      .arg(sandboxId, g.error);
        if (const auto rec = self->m_repo.find(sandboxId))
            o.view = self->viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxService::removeAfterGuard(const QString &sandboxId, const QString &reason, const QString &keptBranch,
                                      const QString &keptSummary)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state == SandboxState::Destroyed) {
        Outcome o;
        o.ok = r.has_value();
        o.error = r ? QString() : QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        if (r)
            o.view = viewOf(*r);
        return finishDestroy(sandboxId, o);
    }
    QString recorded = reason;
    if (!keptSummary.isEmpty())
        recorded = recorded.isEmpty() ? keptSummary : recorded + QStringLiteral("; ") + keptSummary;
    persist(sandboxId, SandboxState::Destroying, {});
    qCInfo(lcSandbox).noquote() << QStringLiteral("destroying %1%2").arg(sandboxId, reason.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(reason));
    if (m_attacher)
        m_attacher->detach(sandboxId);
    QPointer<SandboxService> self(this);
    removeRuntime(r->runtimeName, [self, sandboxId, recorded, keptBranch, keptSummary](bool ok, const QString &error) {
        if (!self)
            return;
        Outcome o;
        o.keptBranch = keptBranch;
        o.keptSummary = keptSummary;
        if (ok) {
            QString dbError;
            self->m_repo.clearPorts(sandboxId, dbError);
            self->persist(sandboxId, SandboxState::Destroyed, recorded);
            o.ok = true;
        } else {
            const QString why = QStringLiteral("destroying failed: %1").arg(error);
            self->persist(sandboxId, SandboxState::Failed, why);
            o.error = QStringLiteral("sandbox %1 could not be destroyed: %2 (call sandbox_destroy again)").arg(sandboxId, error);
        }
        if (const auto rec = self->m_repo.find(sandboxId))
            o.view = self->viewOf(*rec);
        self->finishDestroy(sandboxId, o);
    });
}

void SandboxService::postponeIdleExpiry(const QString &sandboxId, const QString &why)
{
    // Left in place instead of removed: the control channel goes away, so a real VM falls asleep by
    // itself (files kept); the next tool call wakes it, and expiry is tried again a full period later.
    const qint64 now = m_clock.nowMs();
    QString error;
    if (!m_repo.renew(sandboxId, now, now + idleMs(), error))
        qCWarning(lcSandbox).noquote() << "cannot postpone the idle expiry of" << sandboxId << ":" << error;
    if (!m_repo.setReason(sandboxId, why, now, error))
        qCWarning(lcSandbox).noquote() << "cannot record why" << sandboxId << "was kept:" << error;
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCWarning(lcSandbox).noquote() << "idle expiry of" << sandboxId << "postponed:" << why;
    emit sandboxesChanged();
    emit workNotKept(sandboxId, why);
}

void SandboxService::finishDestroy(const QString &id, const Outcome &outcome)
{
    const QList<Done> waiters = m_destroying.take(id);
    for (const Done &d : waiters)
        if (d)
            d(outcome);
}

// ---- expose ---------------------------------------------------------------------------------------

void SandboxService::expose(const QString &sandboxId, const ExposeRequest &request,
                            std::function<void(const ExposeOutcome &)> done)
{
    m_ports->expose(sandboxId, request, std::move(done));
}

// ---- resolver -------------------------------------------------------------------------------------

bool SandboxService::resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error)
{
    QString mode, path;
    const auto r = m_repo.findWithWorkspace(sandboxId, mode, path);
    if (!r) {
        error = QStringLiteral("unknown sandbox_id %1").arg(sandboxId);
        return false;
    }
    bool woke = false;
    std::shared_ptr<StartCheck> startCheck;
    if (r->state == SandboxState::Stopped && m_available) {
        if (!wake(*r, startCheck, error))
            return false;
        woke = true;
    } else if (r->state != SandboxState::Running) {
        error = QStringLiteral("sandbox %1 is not running (state %2%3)")
                    .arg(sandboxId, sandboxStateName(r->state),
                         r->reason.isEmpty() ? QString() : QStringLiteral(": ") + publicText(r->reason));
        return false;
    }
    if (!m_available) {
        error = QStringLiteral("sbx is not available: %1").arg(m_unavailableReason);
        return false;
    }
    out = RunningSandbox{};
    out.sandboxId = r->id;
    out.runtimeName = r->runtimeName;
    out.workspacePath = path;
    out.managedWorkspace = mode == workspaceModeName(WorkspaceMode::Managed);
    out.wokeFromSleep = woke;
    out.startCheck = startCheck;
    // Renewing is a write: at most about once a second per sandbox (waking renewed it).
    const qint64 now = m_clock.nowMs();
    if (!woke && (now - r->lastActivityAt >= 1000 || r->idleDeadline < now + idleMs() - 1000))
        renewNow(sandboxId);
    return true;
}

// ---- sleep and wake -------------------------------------------------------------------------------

bool SandboxService::wake(const SandboxRecord &r, std::shared_ptr<StartCheck> &startCheck, QString &error)
{
    if (m_stopsInFlight.contains(r.id)) {
        error = QStringLiteral("sandbox %1 is being put to sleep right now (sbx stop is running); call again in a few "
                               "seconds and it wakes up").arg(r.id);
        return false;
    }
    const std::optional<Workspace> w = m_workspaces.find(r.workspaceId);
    // Armed before the check: a swap between it and the VM's start (when sbx shares the folder) is seen.
    const std::shared_ptr<FolderSwapWatch> swapWatch = w ? m_workspaces.watchForMount(*w) : nullptr;
    if (w && !checkHostFolder(r.id, *w, error)) {
        error = QStringLiteral("sandbox %1 is asleep and was not woken, because waking it would share whatever is at that "
                               "path now with the VM: %2. Put the folder back as it was approved and call again, or destroy "
                               "the sandbox")
                    .arg(r.id, error);
        return false;
    }
    const qint64 now = m_clock.nowMs();
    QString dbError;
    if (!m_repo.markWoken(r.id, now, now + idleMs(), dbError) && !dbError.isEmpty()) {
        error = dbError;
        return false;
    }
    // Nothing is started here: the channel's `sbx exec` starts the VM (sbx-contract.md, exec row),
    // and the channel asks this check before it sends anything of the call.
    if (w && !w->isManaged()) {
        QPointer<SandboxService> self(this);
        startCheck = std::make_shared<StartCheck>([self, id = r.id, workspace = *w, swapWatch](QString &why) {
            if (!self)
                return false;
            QString what;
            if (swapWatch && swapWatch->changed(what))
                why = QStringLiteral("the host folder %1 changed while sandbox %2 was waking (%3)").arg(workspace.hostPath, id, what);
            else if (self->checkHostFolder(id, workspace, why))
                return true;
            why = QStringLiteral("sandbox %1 was put back to sleep before anything ran in it, because its VM may have been "
                                 "given another folder: %2. Put the folder back as it was approved and call again, or destroy "
                                 "the sandbox")
                      .arg(id, why);
            // Not from inside the channel's answer: the channel is closed and the VM stopped next turn.
            QTimer::singleShot(0, self, [self, id, why] {
                if (self)
                    self->refuseWake(id, why);
            });
            return false;
        });
    }
    qCInfo(lcSandbox).noquote() << "waking sandbox" << r.id << "for a tool call";
    emit sandboxesChanged();
    checkPortsAfterWake(r.id, r.runtimeName);
    return true;
}

void SandboxService::refuseWake(const QString &sandboxId, const QString &why)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    const qint64 now = m_clock.nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_repo.markStopped(sandboxId, now, stopReasons::wakeRefused(why), now, error) && !error.isEmpty())
        qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "was put back to sleep:" << error;
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), now);
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCWarning(lcSandbox).noquote() << why;
    emit sandboxesChanged();
    stopRuntime(sandboxId, r->runtimeName);
}

bool SandboxService::checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const
{
    if (workspace.isManaged())
        return true;
    QString why;
    if (m_workspaces.checkBeforeUse(workspace, why))
        return true;
    error = QStringLiteral("the host folder %1 of sandbox %2 is no longer the approved one (%3)")
                .arg(workspace.hostPath, sandboxId, why);
    qCWarning(lcSandbox).noquote() << error;
    return false;
}

// sbx publishes a sandbox's ports again when it restarts (v0.34); a mapping it no longer lists is
// dropped from the record (and so from sandbox_get) and logged, never shown as if it still worked.
void SandboxService::checkPortsAfterWake(const QString &id, const QString &runtimeName)
{
    if (m_repo.ports(id).isEmpty())
        return;
    QPointer<SandboxService> self(this);
    m_sbx.ports(runtimeName, [self, id](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self || !r.ok)
            return;
        QSet<int> listed;
        for (const SbxPortMapping &m : items)
            listed.insert(m.sandboxPort);
        bool changed = false;
        for (const SandboxPortRecord &p : self->m_repo.ports(id)) {
            if (listed.contains(p.sandboxPort))
                continue;
            QString error;
            if (self->m_repo.removePort(id, p.sandboxPort, error)) {
                changed = true;
                qCWarning(lcSandbox).noquote() << "port" << p.sandboxPort << "of sandbox" << id
                                               << "is no longer published after it woke; removed (expose it again)";
            }
        }
        if (changed)
            emit self->sandboxesChanged();
    });
}

QStringList SandboxService::sleepCandidates() const
{
    QStringList out;
    for (const SandboxRecord &r : m_repo.idleSince(m_clock.nowMs() - sleepMs()))
        if (!m_creating.contains(r.id) && !m_destroying.contains(r.id))
            out.append(r.id);
    return out;
}

std::optional<RunningSandbox> SandboxService::runningSandbox(const QString &sandboxId) const
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return std::nullopt;
    return runningOf(*r, m_workspaces.find(r->workspaceId));
}

void SandboxService::markSessionsLost(const QString &id, const QString &reason, qint64 startedBefore)
{
    QString error;
    const int n = m_sessions.markSandboxSessionsLost(id, reason, startedBefore, m_clock.nowMs(), error);
    if (n < 0)
        qCWarning(lcSandbox).noquote() << "cannot record the lost bash sessions of" << id << ":" << error;
    else if (n > 0)
        qCInfo(lcSandbox).noquote() << n << "bash sessions of" << id << "are lost:" << reason;
}

bool SandboxService::putToSleep(const QString &sandboxId)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running || m_creating.contains(sandboxId) || m_destroying.contains(sandboxId))
        return false;
    const qint64 now = m_clock.nowMs();
    QString error;
    // Persisted before acting: after a crash before `sbx stop` ran, reconciliation finishes the stop.
    if (!m_repo.markStopped(sandboxId, now, stopReasons::sandboxSlept(m_config.sandboxSleepSeconds), now, error)) {
        if (!error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot put" << sandboxId << "to sleep:" << error;
        return false;
    }
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), now);
    if (m_attacher)
        m_attacher->detach(sandboxId);
    qCInfo(lcSandbox).noquote() << "sandbox" << sandboxId << "goes to sleep after" << m_config.sandboxSleepSeconds
                                << "s without a tool call (files kept; the next tool call wakes it)";
    emit sandboxesChanged();
    stopRuntime(sandboxId, r->runtimeName);
    return true;
}

void SandboxService::stopRuntime(const QString &id, const QString &runtimeName)
{
    m_stopsInFlight.insert(id);
    QPointer<SandboxService> self(this);
    m_sbx.stop(runtimeName, [self, id](const SbxResult &r) {
        if (!self)
            return;
        self->m_stopsInFlight.remove(id);
        if (!r.ok)
            qCWarning(lcSandbox).noquote() << "sbx stop of sandbox" << id << "failed (its VM stops by itself once idle):"
                                           << r.error;
    });
}

void SandboxService::noteStopped(const QString &sandboxId, qint64 exitedAt, bool channelBack)
{
    const auto r = m_repo.find(sandboxId);
    if (!r || r->state != SandboxState::Running)
        return;
    markSessionsLost(sandboxId, stopReasons::sessionLostStopped(), exitedAt);
    const qint64 now = m_clock.nowMs();
    QString error;
    if (channelBack) {
        if (!m_repo.recordSleepAndWake(sandboxId, exitedAt, now, stopReasons::sandboxStoppedOutside(), error))
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
    } else {
        if (!m_repo.markStopped(sandboxId, exitedAt, stopReasons::sandboxStoppedOutside(), now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << sandboxId << "stopped:" << error;
        if (m_attacher)
            m_attacher->detach(sandboxId);
    }
    emit sandboxesChanged();
}

// ---- idle expiry ----------------------------------------------------------------------------------

void SandboxService::checkIdle()
{
    if (!m_available)
        return;
    for (const SandboxRecord &r : m_repo.idleExpired(m_clock.nowMs())) {
        if (m_destroying.contains(r.id))
            continue;
        const QString reason = QStringLiteral("destroyed after %1 s without a tool call (idle expiry)")
                                   .arg(m_config.sandboxIdleSeconds);
        QPointer<SandboxService> self(this);
        destroy(r.id, [self, id = r.id](const Outcome &o) {
            if (self && !o.ok && o.exportFailed)
                self->postponeIdleExpiry(id, QStringLiteral("idle expiry left the sandbox stopped instead of removing it: its work "
                                                            "could not be saved to the host repository (%1); fetch it or destroy "
                                                            "it with force")
                                                 .arg(o.exportError));
        }, reason);
    }
}

// ---- reconciliation -------------------------------------------------------------------------------

void SandboxService::ensureAvailable(std::function<void(bool, const QString &)> done)
{
    if (m_available)
        return done(true, {});
    QPointer<SandboxService> self(this);
    reconcile([self, done] {
        if (!self)
            return;
        done(self->m_available, self->m_available ? QString()
                                                  : QStringLiteral("sbx is not available: %1").arg(self->m_unavailableReason));
    });
}

void SandboxService::reconcile(std::function<void()> done)
{
    if (done)
        m_reconcileWaiters.append(std::move(done));
    if (m_reconciling)
        return;
    m_reconciling = true;
    m_retryTimer.stop();
    m_reconcileTimer.start();
    QPointer<SandboxService> self(this);
    m_sbx.list([self](const SbxResult &r, const QList<SbxRuntimeInfo> &items) {
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
            self->finishReconcile();
            return;
        }
        if (!self->m_available || self->m_warnedUnavailable)
            qCInfo(lcSandbox) << "sbx is available again";
        self->m_available = true;
        self->m_unavailableReason.clear();
        self->m_warnedUnavailable = false;
        self->reconcileWith(items);
    });
}

void SandboxService::apply(const ReconcileAction &a, const QHash<QString, SandboxRecord> &records, QList<RunningSandbox> &toAttach)
{
    QPointer<SandboxService> self(this);
    const QString id = a.sandboxId;
    switch (a.kind) {
    case ReconcileAction::Reattach:
        if (const auto r = records.constFind(id); r != records.constEnd())
            toAttach.append(runningOf(*r, m_workspaces.find(r->workspaceId)));
        return;
    case ReconcileAction::MarkStopped: {
        // sbx-contract.md §1: the VM stopped while nobody was attached; its processes are gone.
        const qint64 now = m_clock.nowMs();
        QString error;
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "stopped while chat2sbx was not running; its bash sessions are lost,"
                                       << "its files are kept and the next tool call wakes it";
        markSessionsLost(id, stopReasons::sessionLostWhileDown(), now);
        if (!m_repo.markStopped(id, now, stopReasons::sandboxStoppedWhileDown(), now, error) && !error.isEmpty())
            qCWarning(lcSandbox).noquote() << "cannot record that" << id << "stopped:" << error;
        return;
    }
    case ReconcileAction::FinishStop:
        qCInfo(lcSandbox).noquote() << "finishing the interrupted sleep of" << id;
        markSessionsLost(id, stopReasons::sessionLostStopped(), m_clock.nowMs());
        stopRuntime(id, a.runtimeName);
        return;
    case ReconcileAction::MarkVanished:
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "(" << a.runtimeName << ") vanished: sbx ls no longer lists it";
        persist(id, SandboxState::Failed,
                QStringLiteral("its runtime disappeared (sbx ls no longer lists it); destroy it and create a new one"));
        return;
    case ReconcileAction::KeepLeftover:
        qCWarning(lcSandbox).noquote() << "failed sandbox" << id << "still has its runtime" << a.runtimeName
                                       << "and it may hold work in its clone of the workspace; left alone "
                                          "(sandbox_destroy removes it)";
        return;
    case ReconcileAction::RemoveLeftover:
        qCInfo(lcSandbox).noquote() << "removing the leftover runtime" << a.runtimeName << "of failed sandbox" << id;
        removeRuntime(a.runtimeName, [self, id](bool ok, const QString &error) {
            if (self && !ok)
                qCWarning(lcSandbox).noquote() << "cannot remove the leftover runtime of" << id << ":" << error;
        });
        return;
    case ReconcileAction::CleanInterruptedCreate:
        qCWarning(lcSandbox).noquote() << "sandbox" << id << "was half-made when chat2sbx stopped; removing" << a.runtimeName;
        persist(id, SandboxState::Failed,
                QStringLiteral("creation was interrupted because chat2sbx stopped; the partial runtime was removed"));
        removeRuntime(a.runtimeName, [self, id](bool ok, const QString &error) {
            if (self && !ok)
                qCWarning(lcSandbox).noquote() << "cannot remove the partial runtime of" << id << ":" << error;
        });
        return;
    case ReconcileAction::FinishDestroy:
        qCInfo(lcSandbox).noquote() << "finishing the interrupted destroy of" << id;
        destroy(id, nullptr);
        return;
    case ReconcileAction::ReportUnknown:
        qCWarning(lcSandbox).noquote() << "runtime" << a.runtimeName
                                       << "looks like chat2sbx's but no sandbox record owns it; left alone "
                                          "(remove it with `sbx rm --force " + a.runtimeName + "` if it is not needed)";
        return;
    }
}

void SandboxService::reconcileWith(const QList<SbxRuntimeInfo> &runtimes)
{
    QList<ReconcileRuntime> rows;
    QSet<QString> present;
    for (const SbxRuntimeInfo &i : runtimes) {
        rows.append({i.name, i.status});
        present.insert(i.name);
    }
    QSet<QString> ownedByPool;
    if (m_warm)
        m_warm->reconcileWith(present, ownedByPool);
    QList<ReconcileRecord> records;
    QHash<QString, SandboxRecord> loaded;
    for (const SandboxRecord &r : m_repo.list(true)) {
        loaded.insert(r.id, r);
        ReconcileRecord rec{r.id, r.runtimeName, r.state, false,
                            m_creating.contains(r.id) || m_destroying.contains(r.id)};
        if (r.state == SandboxState::Failed) {
            const auto workspace = m_workspaces.find(r.workspaceId);
            rec.cloneWorkspace = workspace && workspace->mode == WorkspaceMode::Clone;
        }
        records.append(rec);
    }
    const QList<ReconcileAction> plan = planReconciliation(records, rows, ownedByPool, kRuntimePrefix);
    QList<RunningSandbox> toAttach;
    for (const ReconcileAction &a : plan)
        apply(a, loaded, toAttach);
    using K = ReconcileAction;
    qCInfo(lcSandbox).noquote() << QStringLiteral("reconciled with sbx ls in %1 ms: %2 re-attached, %3 vanished, "
                                                  "%4 interrupted creates cleaned up, %5 leftover runtimes of failed sandboxes, "
                                                  "%6 unknown runtimes reported, %7 found stopped")
                                       .arg(m_reconcileTimer.elapsed()).arg(countActions(plan, K::Reattach))
                                       .arg(countActions(plan, K::MarkVanished)).arg(countActions(plan, K::CleanInterruptedCreate))
                                       .arg(countActions(plan, K::RemoveLeftover) + countActions(plan, K::KeepLeftover))
                                       .arg(countActions(plan, K::ReportUnknown)).arg(countActions(plan, K::MarkStopped));

    m_idleTimer.start();
    if (m_attacher) {
        m_attachQueue += toAttach;
        attachQueued();
    }
    finishReconcile();
}

void SandboxService::attachQueued()
{
    QPointer<SandboxService> self(this);
    while (m_attacher && m_attachesRunning < kParallelAttaches && !m_attachQueue.isEmpty()) {
        const RunningSandbox s = m_attachQueue.takeFirst();
        const auto record = m_repo.find(s.sandboxId);
        if (!record || record->state != SandboxState::Running || m_destroying.contains(s.sandboxId))
            continue;   // destroyed or failed while it waited
        ++m_attachesRunning;
        m_attacher->attach(s, [self, id = s.sandboxId](bool ok, const QString &error) {
            if (!self)
                return;
            if (!ok)
                qCWarning(lcSandbox).noquote() << "re-attaching" << id << "failed (it stays running):" << error;
            --self->m_attachesRunning;
            self->attachQueued();
        });
    }
}

void SandboxService::finishReconcile()
{
    m_reconciling = false;
    m_lastReconcileMs = m_reconcileTimer.elapsed();
    emit sandboxesChanged();
    const auto waiters = std::move(m_reconcileWaiters);
    m_reconcileWaiters.clear();
    for (const auto &w : waiters)
        w();
}

void SandboxService::shutdown()
{
    m_idleTimer.stop();
    m_retryTimer.stop();
    m_attachQueue.clear();
    if (m_warm)
        m_warm->shutdown();
    if (!m_attacher)
        return;
    for (const SandboxRecord &r : m_repo.inState(SandboxState::Running))
        m_attacher->detach(r.id);
}

} // namespace chat2sbx
