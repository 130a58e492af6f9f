#pragma once

#include "config/Config.h"
#include "core/Clock.h"
#include "runtime/ServerState.h"
#include "runtime/Services.h"

#include <QElapsedTimer>
#include <QJsonObject>
#include <QObject>

#include <functional>
#include <memory>

class QHttpServer;

namespace chat2sbx {

class AuditLogSink;
class AuditRetention;
class LocalTokenStore;
class McpDispatcher;
class ChatGptSilence;
class ChatGptToolList;
class SettingsRepository;
class McpEndpoint;
class ControlChannel;
class PidFile;
class ToolCallRunner;

// Owns the start-up order over the services that runtime/Services builds and wires: config →
// database → reconciliation → listen → tunnel. Shutdown runs the other way. The tray and `serve`
// both drive one Controller.
class Controller : public QObject {
    Q_OBJECT
public:
    using State = ServerState;

    explicit Controller(const Config &config, QObject *parent = nullptr);
    // Every service reads the time from `clock` (tests pass a ManualClock); it must outlive this.
    Controller(const Config &config, Clock &clock, QObject *parent = nullptr);
    ~Controller() override;

    // Asynchronous: emits started() once the endpoint listens, or failed(reason).
    void start();
    // What ends with a stop: the server alone, or this whole process right after it (serve, the
    // tray). Then the sandboxes' channels' input ends with the process, all at once, instead of one
    // by one while the children that end take the cores (300 channels: 1.8-4.0 s to exit, now 0.3-0.5 s).
    enum class Ending { Server, Process };
    // Asynchronous: emits stopped() when every child process is gone.
    void stop(Ending ending = Ending::Server);

    // Stops the tunnel client and starts it again (new credentials were stored); nothing while the
    // tunnel is off or the server is not running.
    void reconnectTunnel();
    State state() const { return m_state; }
    const Config &config() const { return m_config; }
    Database &database();
    quint16 listeningPort() const { return m_listeningPort; }
    qint64 uptimeMs() const { return m_uptime.isValid() ? m_uptime.elapsed() : 0; }
    // The tools the MCP endpoint serves; tool families register theirs before the endpoint listens.
    ToolRegistry &tools() { return m_services.tools; }
    // Exist once start() got past loading the local token: the HTTP endpoint on /mcp, the protocol
    // behind it and the tool calls in flight.
    McpEndpoint *mcpEndpoint() const { return m_mcp.get(); }
    McpDispatcher *mcpDispatcher() const { return m_dispatcher.get(); }
    ToolCallRunner *toolCalls() const { return m_toolCalls.get(); }
    // The shared secret for Config::localTokenHeader; empty unless Config::requireLocalToken.
    // tunnel-client gets it as --mcp.extra-headers "<header>: env:VAR".
    QString localToken() const;
    // The sandbox lifecycle services; built in the constructor so others can hook in
    // (e.g. sandboxes().setAttacher()) before start(), which reconciles them before listening.
    WorkspaceService &workspaces() { return *m_services.workspaces; }
    SandboxService &sandboxes() { return *m_services.sandboxes; }
    WarmPool &warmPool() { return *m_services.warm; }
    CloudWarmPool *cloudWarmPool() { return m_services.cloudWarm.get(); }
    // Whether sbx is present, recent enough, signed in and has the template (checked from start()).
    SbxHealth &sbxHealth() { return *m_services.sbxHealth; }
    CheckpointService &checkpoints() { return *m_services.checkpoints; }
    SandboxMover &mover() { return *m_services.mover; }
    SbxDriver &sbx() { return *m_services.sbx; }
    FileExport &fileExport() { return *m_services.fileExport; }
    ExportApprovals &exportApprovals() { return *m_services.exportApprovals; }
    PublicPorts &publicPorts() { return *m_services.publicPorts; }
    // Valid for the Controller's lifetime; it reads the database, so use it once started() was emitted.
    ApprovalService &approvals() { return *m_services.approvals; }
    NetworkAccess &network() { return *m_services.network; }
    // Review and export of the work in sandboxes' git workspaces (show_changes, export_changes,
    // the tray's "Fetch as branch", export before destroy).
    ChangesService &changes() { return *m_services.changes; }
    // The user's Revoke / remove of a workspace (sandboxes destroyed, work saved, approval withdrawn).
    WorkspaceRemoval &workspaceRemoval() { return *m_services.removal; }
    // The Secure MCP Tunnel client's supervisor; started after listen when Config::enableTunnel.
    // Exists from construction, so the MCP endpoint can call setLocalToken() before start().
    TunnelSupervisor &tunnel() { return *m_services.tunnel; }
    // Running commands, their output tails and recent tool calls (the tray's Activity view).
    ActivityMonitor &activity() { return *m_services.activity; }
    // Every service, for what acts on the server's behalf (the control channel's verbs).
    Services &services() { return m_services; }
    // Answers the CLI's requests on the control channel (runtime/ControlChannel), which listens while
    // the server runs; set before start().
    using ControlHandler = std::function<void(const QJsonObject &request, std::function<void(const QJsonObject &reply)> reply)>;
    void setControlHandler(ControlHandler handler)
    {
        m_controlHandler = std::move(handler);
    }
    // What the application gives every Controller it makes to answer the control channel
    // (app/OwnedVerb: the CLI's verbs); registered once, at static initialisation.
    static bool setControlHandlerInstaller(void (*installer)(Controller &));
    // How long a starting server waits for a CLI command that holds the lock (acting while no
    // server ran), asking again every kLockRetryMs.
    static constexpr qint64 kWaitForCommandMs = 120000;
    static constexpr int kLockRetryMs = 200;
    // Whether ChatGPT has the tool list served now (status, the tray); exists once started().
    const ChatGptToolList *chatGptToolList() const { return m_chatGptTools.get(); }
    const ChatGptSilence *chatGptSilence() const { return m_chatGptSilence.get(); }

signals:
    void started();
    void failed(const QString &reason);
    void stopped();
    void stateChanged(chat2sbx::ServerState state);
    // A tool call's audit row was written (relayed from the MCP endpoint once it exists).
    void toolCallAudited();

private:
    QHttpServer &http();   // made on first use: listen() binds it, the endpoints install on it
    void setState(State s);
    void takeLock();   // the rest of start() once the lock is held
    bool openDatabase(QString &error);
    bool listen(QString &error);
    void listenAndRun();
    void fail(const QString &reason);
    void afterReconciliation();   // then the MCP endpoint
    void finishStop();            // the rest of stop() once the tunnel client is gone

    Config m_config;   // the services keep a reference: declared before them
    State m_state = State::Stopped;
    // Clock::system() or a test's clock; outlives the Controller.
    Clock &m_clock;
    Services m_services;   // outlives everything below, which uses it
    std::unique_ptr<AuditRetention> m_auditRetention;
    std::unique_ptr<QHttpServer> m_http;
    std::unique_ptr<LocalTokenStore> m_localTokens;
    std::unique_ptr<AuditLogSink> m_auditSink;
    std::unique_ptr<ToolCallRunner> m_toolCalls;     // outlives the dispatcher, which outlives the endpoint
    std::unique_ptr<McpDispatcher> m_dispatcher;
    std::unique_ptr<McpEndpoint> m_mcp;
    std::unique_ptr<SettingsRepository> m_settings;
    std::unique_ptr<ChatGptToolList> m_chatGptTools;
    std::unique_ptr<ChatGptSilence> m_chatGptSilence;
    std::unique_ptr<PidFile> m_pidFile;
    QElapsedTimer m_lockWait;
    bool m_waitedForCommand = false;
    std::unique_ptr<ControlChannel> m_control;
    ControlHandler m_controlHandler;
    quint16 m_listeningPort = 0;
    QElapsedTimer m_uptime;
};

} // namespace chat2sbx
