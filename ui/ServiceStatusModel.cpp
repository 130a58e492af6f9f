#include "ServiceStatusModel.h"

#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/sbx/SbxHealth.h"
#include "tunnel/TunnelSupervisor.h"

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
    connect(&controller.tunnel(), &TunnelSupervisor::statusChanged, this, &StatusModel::changed);
    connect(&controller.tunnel(), &TunnelSupervisor::stateChanged, this, &StatusModel::changed);
    connect(&controller.sandboxes(), &SandboxService::sandboxesChanged, this, &StatusModel::changed);
    connect(&controller.sbxHealth(), &SbxHealth::changed, this, &StatusModel::changed);
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
        TunnelSupervisor &t = m_controller.tunnel();
        switch (t.state()) {
        case TunnelSupervisor::State::Stopped: s.tunnel = StatusInfo::Tunnel::Stopped; break;
        case TunnelSupervisor::State::Starting: s.tunnel = StatusInfo::Tunnel::Starting; break;
        case TunnelSupervisor::State::Connected: s.tunnel = StatusInfo::Tunnel::Connected; break;
        case TunnelSupervisor::State::Unauthorized: s.tunnel = StatusInfo::Tunnel::Unauthorized; break;
        case TunnelSupervisor::State::Failed: s.tunnel = StatusInfo::Tunnel::Failed; break;
        }
        s.tunnelError = t.state() == TunnelSupervisor::State::Connected ? QString()
                        : !t.detail().isEmpty() && t.state() != TunnelSupervisor::State::Starting ? t.detail()
                                                                                                  : t.lastError();
    }
    const StatusReport report = statusFromServer(m_controller);
    s.activeSandboxes = int(qMax<qint64>(report.activeSandboxes, 0));
    s.warmSandboxes = int(qMax<qint64>(report.warmSandboxes, 0));
    s.sandboxLimit = sandboxLimitText(report.maxActiveSandboxes);
    s.version = report.version;
    s.sbx = report.sbx.summary();
    s.sbxProblem = report.sbx.checked() ? report.sbx.currentProblem() : QString();
    const QStringList notices = report.notices();
    s.chatGptNotice = notices.isEmpty() ? QString() : QStringLiteral("ChatGPT: ") + notices.first();
    return s;
}

} // namespace chat2sbx::ui
