#include "runtime/TrayServices.h"

#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"

namespace chat2sbx {

TrayServices::TrayServices(Controller &controller, QObject *parent)
    : QObject(parent), m_controller(controller), m_approvals(controller.approvals()), m_sandboxes(controller.sandboxes()),
      m_workspaces(controller.workspaces()), m_changes(controller.changes()), m_workspaceRemoval(controller.workspaceRemoval()),
      m_network(controller.network()), m_activity(controller.activity()), m_tunnel(controller.tunnel()),
      m_sbxHealth(controller.sbxHealth())
{
    connect(&controller, &Controller::stateChanged, this, &TrayServices::serverStateChanged);
    connect(&controller, &Controller::started, this, &TrayServices::started);
    connect(&controller, &Controller::failed, this, &TrayServices::failed);
}

ServerState TrayServices::serverState() const
{
    return m_controller.state();
}

StatusReport TrayServices::statusReport() const
{
    return statusFromServer(m_controller);
}

} // namespace chat2sbx
