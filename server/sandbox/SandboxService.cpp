#include "sandbox/SandboxService.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/RuntimeAttacher.h"
#include "sandbox/SbxDriver.h"
#include "sandbox/WarmPool.h"
#include "state/Database.h"
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

// A free TCP port on the host for `sbx ports --publish` (the contract needs an explicit host port).
int pickHostPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::Any, 0))
        return 0;
    return probe.serverPort();
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
    m_sbx.create(spec, [self, id](const SbxResult &result) {
        if (!self)
            return;
        if (!result.ok)
            return self->failCreate(id, result.error);
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

void SandboxService::destroy(const QString &sandboxId, Done done, const QString &reason)
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
    persist(sandboxId, SandboxState::Destroying, {});
    qCInfo(lcSandbox).noquote() << "destroying" << sandboxId << (reason.isEmpty() ? QString() : QStringLiteral("(%1)").arg(reason));
    if (m_attacher)
        m_attacher->detach(sandboxId);
    QPointer<SandboxService> self(this);
    removeRuntime(r->runtimeName, [self, sandboxId, reason](bool ok, const QString &error) {
        if (!self)
            return;
        Outcome o;
        if (ok) {
            QString dbError;
            self->m_repo.clearPorts(sandboxId, dbError);
            self->persist(sandboxId, SandboxState::Destroyed, reason);
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

void SandboxService::finishDestroy(const QString &id, const Outcome &outcome)
{
    const QList<Done> waiters = m_destroying.take(id);
    for (const Done &d : waiters)
        if (d)
            d(outcome);
}

// ---- expose ---------------------------------------------------------------------------------------

void SandboxService::expose(const QString &sandboxId, int sandboxPort, std::function<void(const ExposeOutcome &)> done)
{
    RunningSandbox running;
    QString error;
    if (!resolveRunning(sandboxId, running, error)) {
        ExposeOutcome o;
        o.error = error;
        return done(o);
    }
    if (const auto known = m_repo.findPort(sandboxId, sandboxPort)) {
        ExposeOutcome o;
        o.ok = true;
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
    auto record = [self, sandboxId, finish](const SbxPortMapping &m, bool existing) {
        ExposeOutcome o;
        o.ok = true;
        o.existing = existing;
        o.port = {m.sandboxPort, m.hostIp, m.hostPort};
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
    m_sbx.ports(runtime, [self, runtime, sandboxPort, record, fail, findIn](const SbxResult &r, const QList<SbxPortMapping> &items) {
        if (!self)
            return;
        if (!r.ok)
            return fail(r.error);
        if (const auto m = findIn(items))
            return record(*m, true);
        const int hostPort = pickHostPort();
        if (hostPort == 0)
            return fail(QStringLiteral("no free host port"));
        self->m_sbx.publish(runtime, hostPort, sandboxPort, [self, runtime, record, fail, findIn](const SbxResult &pr) {
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
        destroy(r.id, nullptr, reason);
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
                                                  "%4 interrupted creates cleaned up, %5 unknown runtimes reported")
                                       .arg(m_reconcileTimer.elapsed()).arg(reattached).arg(vanished).arg(interrupted).arg(unknown);

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
