#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"

#include "core/Clock.h"
#include "sandbox/lifecycle/Redaction.h"
#include "state/Database.h"
#include "workspace/WorkspaceService.h"

#include <algorithm>
#include <memory>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSandbox, "chat2sbx.sandbox")

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

} // namespace chat2sbx
