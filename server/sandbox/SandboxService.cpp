#include "sandbox/SandboxService.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/DestroyGuard.h"
#include "sandbox/RuntimeAttacher.h"
#include "sandbox/SbxDriver.h"
#include "sandbox/WarmPool.h"
#include "state/Database.h"
#include "workspace/FolderSwapWatch.h"
#include "workspace/WorkspaceService.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLoggingCategory>
#include <QPointer>
#include <QRegularExpression>
#include <QSet>
#include <QTcpServer>

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

// A free TCP port on `hostIp` for `sbx ports --publish` (the contract needs an explicit host port).
int pickHostPort(const QString &hostIp)
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress(hostIp), 0))
        return 0;
    return probe.serverPort();
}

// Whether `hostIp:hostPort` can be bound right now (nothing else holds it).
bool hostPortFree(const QString &hostIp, int hostPort)
{
    QTcpServer probe;
    return probe.listen(QHostAddress(hostIp), static_cast<quint16>(hostPort));
}

// An existing mapping differs from what the caller asked for.
QString conflictWith(const SandboxPortRecord &known, const SandboxService::ExposeRequest &request)
{
    if ((request.hostIpGiven && known.hostIp != request.hostIp) || (request.hostPort > 0 && known.hostPort != request.hostPort))
        return QStringLiteral("port %1 is already exposed on %2:%3; it stays there (destroy the sandbox to publish it elsewhere)")
            .arg(known.sandboxPort).arg(known.hostIp).arg(known.hostPort);
    return {};
}

} // namespace

SandboxService::SandboxService(const Config &config, Database &db, WorkspaceService &workspaces, SbxDriver &sbx,
                               Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_workspaces(workspaces), m_sbx(sbx), m_clock(clock), m_repo(db)
{
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
    QString t = text;
    // Runtime names of known sandboxes become their public ids, any other name of ours a placeholder.
    static const QRegularExpression runtimeRe(QStringLiteral("chat2sbx-[0-9a-f]{16}"));
    if (t.contains(runtimeRe)) {
        for (const SandboxRecord &r : m_repo.list(true))
            t.replace(r.runtimeName, r.id);
        t.replace(runtimeRe, QStringLiteral("<sandbox>"));
    }
    QStringList roots{m_config.workspaceRoot, m_config.stateDir, m_config.dataRoot};
    roots.removeAll(QString());
    std::sort(roots.begin(), roots.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    if (!m_config.workspaceRoot.isEmpty()) {
        const QRegularExpression wsRe(QRegularExpression::escape(m_config.workspaceRoot) + QStringLiteral("/ws_[0-9a-f]{24}"));
        t.replace(wsRe, QStringLiteral("~/workspace"));
    }
    for (const QString &root : roots)
        t.replace(root, QStringLiteral("<data dir>"));
    return t;
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
        if (auto running = m_repo.findForWorkspace(workspace->id, SandboxState::Running)) {
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
    const std::shared_ptr<FolderSwapWatch> swapWatch = m_workspaces.watchForCreate(*workspace);
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
    if (!m_guard || r->state != SandboxState::Running)
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
    const int sandboxPort = request.sandboxPort;
    RunningSandbox running;
    QString error;
    if (!resolveRunning(sandboxId, running, error)) {
        ExposeOutcome o;
        o.error = error;
        return done(o);
    }
    if (const auto known = m_repo.findPort(sandboxId, sandboxPort)) {
        ExposeOutcome o;
        o.error = conflictWith(*known, request);
        o.ok = o.error.isEmpty();
        o.existing = true;
        o.port = *known;
        return done(o);
    }
    const QString key = sandboxId + QLatin1Char(':') + QString::number(sandboxPort);
    if (m_exposing.contains(key)) {
        m_exposing[key].append(std::move(done));
        return;
    }
    m_exposing.insert(key, {std::move(done)});

    QPointer<SandboxService> self(this);
    auto finish = [self, key](const ExposeOutcome &o) {
        if (!self)
            return;
        const auto waiters = self->m_exposing.take(key);
        for (const auto &w : waiters)
            w(o);
    };
    auto record = [self, sandboxId, finish, request](const SbxPortMapping &m, bool existing) {
        ExposeOutcome o;
        o.port = {m.sandboxPort, m.hostIp, m.hostPort};
        if (existing)
            o.error = conflictWith(o.port, request);
        o.ok = o.error.isEmpty();
        o.existing = existing;
        QString dbError;
        if (!self->m_repo.upsertPort(sandboxId, o.port, dbError))
            qCWarning(lcSandbox).noquote() << "cannot record port of" << sandboxId << ":" << dbError;
        emit self->sandboxesChanged();
        finish(o);
    };
    auto fail = [finish](const QString &message) {
        ExposeOutcome o;
        o.error = message;
        finish(o);
    };
    auto findIn = [sandboxPort](const QList<SbxPortMapping> &items) -> std::optional<SbxPortMapping> {
        for (const SbxPortMapping &m : items)
            if (m.sandboxPort == sandboxPort)
                return m;
        return std::nullopt;
    };
    const QString runtime = running.runtimeName;
    m_sbx.ports(runtime, [self, runtime, request, record, fail, findIn](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self)
            return;
        if (!r.ok)
            return fail(r.error);
        if (const auto m = findIn(items))
            return record(*m, true);
        int hostPort = request.hostPort;
        if (hostPort > 0 && !hostPortFree(request.hostIp, hostPort))
            return fail(QStringLiteral("host port %1 on %2 is already in use on this machine; choose another host_port "
                                       "or omit it to get a free one").arg(hostPort).arg(request.hostIp));
        if (hostPort == 0)
            hostPort = pickHostPort(request.hostIp);
        if (hostPort == 0)
            return fail(QStringLiteral("no free host port on %1").arg(request.hostIp));
        self->m_sbx.publish(runtime, request.hostIp, hostPort, request.sandboxPort,
                            [self, runtime, record, fail, findIn](const SbxResult &pr) {
            if (!self)
                return;
            if (!pr.ok)
                return fail(pr.error);
            self->m_sbx.ports(runtime, [record, fail, findIn](const SbxResult &r2, const QList<SbxPortMapping> &after) {
                if (!r2.ok)
                    return fail(r2.error);
                if (const auto m = findIn(after))
                    return record(*m, false);
                fail(QStringLiteral("sbx ports does not list the port after publishing it"));
            });
        });
    });
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
    if (r->state != SandboxState::Running) {
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
    // Renewing is a write: at most about once a second per sandbox.
    const qint64 now = m_clock.nowMs();
    if (now - r->lastActivityAt >= 1000 || r->idleDeadline < now + idleMs() - 1000)
        renewNow(sandboxId);
    return true;
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
        QList<QString> names;
        for (const SbxRuntimeInfo &i : items)
            names.append(i.name);
        self->reconcileWith(names);
    });
}

void SandboxService::reconcileWith(const QList<QString> &runtimeNames)
{
    const QSet<QString> present(runtimeNames.begin(), runtimeNames.end());
    int reattached = 0, vanished = 0, interrupted = 0, unknown = 0;
    QList<RunningSandbox> toAttach;

    for (const SandboxRecord &r : m_repo.inState(SandboxState::Running)) {
        if (present.contains(r.runtimeName)) {
            ++reattached;
            toAttach.append(runningOf(r, m_workspaces.find(r.workspaceId)));
        } else {
            ++vanished;
            qCWarning(lcSandbox).noquote() << "sandbox" << r.id << "(" << r.runtimeName << ") vanished: sbx ls no longer lists it";
            persist(r.id, SandboxState::Failed,
                    QStringLiteral("its runtime disappeared (sbx ls no longer lists it); destroy it and create a new one"));
        }
    }
    // A failed record whose runtime sbx still lists: a create that went on after we stopped (an
    // orphaned `sbx create` finishing late), or a clean-up that did not finish. Converge: remove it,
    // unless the VM may hold the only copy of the user's work (a clone workspace), then say so.
    int leftovers = 0;
    for (const SandboxRecord &r : m_repo.inState(SandboxState::Failed)) {
        if (!present.contains(r.runtimeName) || m_creating.contains(r.id) || m_destroying.contains(r.id))
            continue;
        ++leftovers;
        const auto workspace = m_workspaces.find(r.workspaceId);
        if (workspace && workspace->mode == WorkspaceMode::Clone) {
            qCWarning(lcSandbox).noquote() << "failed sandbox" << r.id << "still has its runtime" << r.runtimeName
                                           << "and it may hold work in its clone of the workspace; left alone "
                                              "(sandbox_destroy removes it)";
            continue;
        }
        qCInfo(lcSandbox).noquote() << "removing the leftover runtime" << r.runtimeName << "of failed sandbox" << r.id;
        QPointer<SandboxService> self(this);
        const QString id = r.id;
        removeRuntime(r.runtimeName, [self, id](bool ok, const QString &error) {
            if (self && !ok)
                qCWarning(lcSandbox).noquote() << "cannot remove the leftover runtime of" << id << ":" << error;
        });
    }
    for (const SandboxRecord &r : m_repo.inState(SandboxState::Creating)) {
        if (m_creating.contains(r.id))
            continue;
        ++interrupted;
        qCWarning(lcSandbox).noquote() << "sandbox" << r.id << "was half-made when chat2sbx stopped; removing" << r.runtimeName;
        persist(r.id, SandboxState::Failed,
                QStringLiteral("creation was interrupted because chat2sbx stopped; the partial runtime was removed"));
        QPointer<SandboxService> self(this);
        const QString id = r.id;
        removeRuntime(r.runtimeName, [self, id](bool ok, const QString &error) {
            if (self && !ok)
                qCWarning(lcSandbox).noquote() << "cannot remove the partial runtime of" << id << ":" << error;
        });
    }
    for (const SandboxRecord &r : m_repo.inState(SandboxState::Destroying)) {
        if (m_destroying.contains(r.id))
            continue;
        // Finish what was started: the record says it was to go.
        qCInfo(lcSandbox).noquote() << "finishing the interrupted destroy of" << r.id;
        destroy(r.id, nullptr);
    }
    QSet<QString> known;
    if (m_warm)
        m_warm->reconcileWith(present, known);
    for (const SandboxRecord &r : m_repo.list(true))
        if (r.state != SandboxState::Destroyed)
            known.insert(r.runtimeName);
    for (const QString &name : runtimeNames) {
        if (name.startsWith(kRuntimePrefix) && !known.contains(name)) {
            ++unknown;
            qCWarning(lcSandbox).noquote() << "runtime" << name
                                           << "looks like chat2sbx's but no sandbox record owns it; left alone "
                                              "(remove it with `sbx rm --force " + name + "` if it is not needed)";
        }
    }
    qCInfo(lcSandbox).noquote() << QStringLiteral("reconciled with sbx ls in %1 ms: %2 re-attached, %3 vanished, "
                                                  "%4 interrupted creates cleaned up, %5 leftover runtimes of failed sandboxes, "
                                                  "%6 unknown runtimes reported")
                                       .arg(m_reconcileTimer.elapsed()).arg(reattached).arg(vanished).arg(interrupted)
                                       .arg(leftovers).arg(unknown);

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
