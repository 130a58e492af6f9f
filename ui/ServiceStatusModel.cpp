#include "ServiceStatusModel.h"

#include "runtime/Controller.h"
// Until every service branch is merged, the parts for a missing service compile out.
#include "sandbox/SandboxService.h"
#if __has_include("tunnel/TunnelSupervisor.h")
#include "tunnel/TunnelSupervisor.h"
#define CHAT2SBX_UI_HAS_TUNNEL 1
#endif

namespace chat2sbx::ui {

ServiceStatusModel::ServiceStatusModel(Controller &controller, QObject *parent) : StatusModel(parent), m_controller(controller)
{
    connect(&controller, &Controller::stateChanged, this, &StatusModel::changed);
    connect(&controller, &Controller::failed, this, [this](const QString &reason) {
        m_failure = reason;
        emit changed();
    });
    connect(&controller, &Controller::started, this, [this] {
        m_failure.clear();
        emit changed();
    });
#ifdef CHAT2SBX_UI_HAS_TUNNEL
    connect(&controller.tunnel(), &TunnelSupervisor::statusChanged, this, &StatusModel::changed);
    connect(&controller.tunnel(), &TunnelSupervisor::stateChanged, this, &StatusModel::changed);
#endif
    connect(&controller.sandboxes(), &SandboxService::sandboxesChanged, this, &StatusModel::changed);
}

StatusInfo ServiceStatusModel::status() const
{
    StatusInfo s;
    switch (m_controller.state()) {
    case Controller::State::Stopped: s.server = StatusInfo::Server::Stopped; break;
    case Controller::State::Starting: s.server = StatusInfo::Server::Starting; break;
    case Controller::State::Running: s.server = StatusInfo::Server::Running; break;
    case Controller::State::Stopping: s.server = StatusInfo::Server::Stopping; break;
    case Controller::State::Failed: s.server = StatusInfo::Server::Failed; break;
    }
    s.serverError = m_failure;
    const Config &c = m_controller.config();
    s.endpointUrl = c.mcpUrl();
    if (!c.enableTunnel) {
        s.tunnel = StatusInfo::Tunnel::Disabled;
    } else {
#ifdef CHAT2SBX_UI_HAS_TUNNEL
        TunnelSupervisor &t = m_controller.tunnel();
        switch (t.state()) {
        case TunnelSupervisor::State::Stopped: s.tunnel = StatusInfo::Tunnel::Stopped; break;
        case TunnelSupervisor::State::Starting: s.tunnel = StatusInfo::Tunnel::Starting; break;
        case TunnelSupervisor::State::Ready: s.tunnel = StatusInfo::Tunnel::Ready; break;
        case TunnelSupervisor::State::Failed: s.tunnel = StatusInfo::Tunnel::Failed; break;
        }
        s.tunnelError = t.lastError();
#else
        s.tunnel = StatusInfo::Tunnel::Stopped;
        s.tunnelError = QStringLiteral("the tunnel supervisor is not in this build");
#endif
    }
    if (m_controller.state() == Controller::State::Running) {
        for (const SandboxView &v : m_controller.sandboxes().list())
            if (v.record.isActive())
                ++s.activeSandboxes;
    }
    s.sandboxLimit = c.maxActiveSandboxes;
    s.version = QStringLiteral(CHAT2SBX_VERSION);
    return s;
}

} // namespace chat2sbx::ui
