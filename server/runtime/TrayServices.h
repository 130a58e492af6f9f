#pragma once

#include "runtime/ServerState.h"
#include "runtime/StatusReport.h"

#include <QObject>

namespace chat2sbx {

class ActivityMonitor;
class ApprovalService;
class ChangesService;
class Controller;
class NetworkAccess;
class SandboxService;
class SbxHealth;
class TunnelSupervisor;
class WorkspaceRemoval;
class WorkspaceService;

// What the tray may reach of the server: the services its models bind to, the server's state and the
// status report /healthz answers. Built from the Controller, which outlives it; the rest of the
// Controller (HTTP, database, tools, the MCP endpoint, start and stop) stays with runtime and app.
class TrayServices : public QObject {
    Q_OBJECT
public:
    explicit TrayServices(Controller &controller, QObject *parent = nullptr);

    ApprovalService &approvals() const { return m_approvals; }
    SandboxService &sandboxes() const { return m_sandboxes; }
    WorkspaceService &workspaces() const { return m_workspaces; }
    ChangesService &changes() const { return m_changes; }
    WorkspaceRemoval &workspaceRemoval() const { return m_workspaceRemoval; }
    NetworkAccess &network() const { return m_network; }
    ActivityMonitor &activity() const { return m_activity; }
    TunnelSupervisor &tunnel() const { return m_tunnel; }
    SbxHealth &sbxHealth() const { return m_sbxHealth; }

    ServerState serverState() const;
    StatusReport statusReport() const;

signals:
    // The Controller's own signals, relayed.
    void serverStateChanged();
    void started();
    void failed(const QString &reason);

private:
    // All owned by the Controller, which outlives this.
    Controller &m_controller;
    ApprovalService &m_approvals;
    SandboxService &m_sandboxes;
    WorkspaceService &m_workspaces;
    ChangesService &m_changes;
    WorkspaceRemoval &m_workspaceRemoval;
    NetworkAccess &m_network;
    ActivityMonitor &m_activity;
    TunnelSupervisor &m_tunnel;
    SbxHealth &m_sbxHealth;
};

} // namespace chat2sbx
