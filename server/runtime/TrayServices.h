#pragma once

#include "runtime/ServerState.h"
#include "runtime/StatusReport.h"

#include <QObject>

#include <functional>
#include <memory>

namespace chat2sbx {

class ActivityMonitor;
class ApprovalService;
class ChangesService;
class CheckpointService;
class Controller;
struct Config;
class ExportApprovals;
class PublicPorts;
class NetworkAccess;
class SandboxMover;
class SandboxService;
class SbxHealth;
class TemplateBuilder;
class TunnelSupervisor;
struct TunnelImportOutcome;
class WorkspaceRemoval;
class WorkspaceService;

// What the tray may reach of the server: the services its models bind to, the server's state and the
// status report /healthz answers. Built from the Controller, which outlives it; the rest of the
// Controller (HTTP, database, tools, the MCP endpoint, start and stop) stays with runtime and app.
class TrayServices : public QObject {
    Q_OBJECT
public:
    explicit TrayServices(Controller &controller, QObject *parent = nullptr);
    ~TrayServices() override;

    ApprovalService &approvals() const { return m_approvals; }
    ExportApprovals &exportApprovals() const { return m_exportApprovals; }
    PublicPorts &publicPorts() const { return m_publicPorts; }
    SandboxService &sandboxes() const { return m_sandboxes; }
    WorkspaceService &workspaces() const { return m_workspaces; }
    ChangesService &changes() const { return m_changes; }
    WorkspaceRemoval &workspaceRemoval() const { return m_workspaceRemoval; }
    NetworkAccess &network() const { return m_network; }
    ActivityMonitor &activity() const { return m_activity; }
    TunnelSupervisor &tunnel() const { return m_tunnel; }
    SbxHealth &sbxHealth() const { return m_sbxHealth; }
    CheckpointService &checkpoints() const { return m_checkpoints; }
    SandboxMover &mover() const;
    // The user turned Docker's cloud sandboxes on (Config::cloudSandboxes).
    bool cloudSandboxes() const;

    // Where export_file puts files (Config::exportDir).
    QString exportDir() const;
    ServerState serverState() const;
    StatusReport statusReport() const;

    // The first-run guide's Prepare: the template part of `chat2sbx setup` (TemplateBuilder), its
    // lines as they come, `done` once; then sbx is checked again. One run at a time: false while
    // one runs. Cancel stops it after the current sbx command, removing the builder.
    bool prepareTemplate(std::function<void(const QString &line)> output, std::function<void(bool ok, const QString &message)> done);
    void cancelPrepare();
    bool preparing() const { return m_prepare != nullptr; }
    // The guide's tunnel files (tunnel/TunnelCredentialImport: keychain, else the secret directory),
    // then the tunnel client starts again with them. `done` runs once.
    void importTunnelFiles(const QString &fileA, const QString &fileB, std::function<void(const TunnelImportOutcome &)> done);
    // The guide's "Add a folder": agents may then ask for folders below `dir` (WorkspaceService:
    // written to config.json, allowed at once). A readable error, or a note when the environment's
    // CHAT2SBX_ALLOWED_HOST_ROOTS will hide config.json at the next start.
    bool addHostFolder(const QString &dir, QString &message);
    // The guide's "Choose sbx…": `path` must answer `version` as sbx of a supported version; then it is
    // saved as `sbx` in config.json and every sbx command uses it from now on. `done` runs once.
    void useSbxProgram(const QString &path, std::function<void(bool ok, const QString &message)> done);
    // Runs the sbx checks again now (the guide's "Check again").
    void checkAgain();

signals:
    // The Controller's own signals, relayed.
    void serverStateChanged();
    void started();
    void failed(const QString &reason);
    // export_file put a file on this computer.
    void fileExported(const QString &sandboxId, const QString &hostPath);

private:
    // All owned by the Controller, which outlives this.
    Controller &m_controller;
    ApprovalService &m_approvals;
    ExportApprovals &m_exportApprovals;
    PublicPorts &m_publicPorts;
    SandboxService &m_sandboxes;
    WorkspaceService &m_workspaces;
    ChangesService &m_changes;
    WorkspaceRemoval &m_workspaceRemoval;
    NetworkAccess &m_network;
    ActivityMonitor &m_activity;
    TunnelSupervisor &m_tunnel;
    SbxHealth &m_sbxHealth;
    CheckpointService &m_checkpoints;
    std::unique_ptr<Config> m_prepareConfig;   // the server's, with the sbx chosen in the tray; outlives m_prepare
    std::unique_ptr<TemplateBuilder> m_prepare;
};

} // namespace chat2sbx
