#include "runtime/Controller.h"

#include "config/LocalTokenStore.h"
#include "mcp/HttpConnectionGuard.h"
#include "mcp/McpDispatcher.h"
#include "mcp/McpEndpoint.h"
#include "mcp/ToolCallRunner.h"
#include "runtime/AuditLogSink.h"
#include "runtime/FdLimit.h"
#include "sandbox/ActivityMonitor.h"
#include "state/AuditRetention.h"
#include "runtime/HealthEndpoint.h"
#include "runtime/PidFile.h"
#include "sandbox/BashSessions.h"
#include "sandbox/ChannelPool.h"
#include "sandbox/SandboxService.h"
#include "sandbox/SandboxSleep.h"
#include "sandbox/SbxDriver.h"
#include "sandbox/SbxHealth.h"
#include "sandbox/WarmPool.h"
#include "state/Database.h"
#include "tools/ImportFileTool.h"
#include "tools/InSandboxTools.h"
#include "tools/SandboxTools.h"
#include "tools/WorkspaceTools.h"
#include "tools/NetworkTools.h"
#include "sandbox/NetworkAccess.h"
#include "tunnel/TunnelSupervisor.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceRetention.h"
#include "workspace/WorkspaceService.h"
#include "sandbox/ChangesService.h"
#include "sandbox/WorkspaceRemoval.h"
#include "tools/ChangesTools.h"
#include "workspace/HostGit.h"

#include <QDir>
#include <QHostAddress>
#include <QHttpServer>
#include <QLoggingCategory>
#include <QTimer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcController, "chat2sbx.controller")

Controller::Controller(const Config &config, QObject *parent)
    : Controller(config, Clock::system(), parent)
{
}

Controller::Controller(const Config &config, Clock &clock, QObject *parent)
    : QObject(parent), m_config(config), m_clock(clock), m_db(std::make_unique<Database>()),
      m_tunnel(std::make_unique<TunnelSupervisor>(config))
{
    // sbx driver, workspaces, sandbox lifecycle and its tools.
    m_sbx = std::make_unique<SbxDriver>(m_config.sbxPath);
    m_workspaces = std::make_unique<WorkspaceService>(m_config, *m_db, m_clock);
    m_sandboxes = std::make_unique<SandboxService>(m_config, *m_db, *m_workspaces, *m_sbx, m_clock);
    m_channels = std::make_unique<ChannelPool>(*m_sbx);   // sandbox_expose probes ports through it
    m_sbxHealth = std::make_unique<SbxHealth>(*m_sbx, m_config.templateRef());
    connect(m_sandboxes.get(), &SandboxService::templateMissing, m_sbxHealth.get(), &SbxHealth::refresh);
    connect(m_sandboxes.get(), &SandboxService::createFinished, m_sbxHealth.get(), &SbxHealth::noteCreateResult);
    // Network access requests and the sbx rules chat2sbx added.
    m_network = std::make_unique<NetworkAccess>(*m_db, *m_sandboxes, *m_sbx, m_clock);
    registerSandboxTools(m_tools, *m_sandboxes, m_config, m_channels.get(), m_network.get());
    registerNetworkTools(m_tools, *m_network);
    // Workspaces and approvals.
    m_approvals = std::make_unique<ApprovalService>(*m_workspaces, *m_db, m_clock);
    m_retention = std::make_unique<WorkspaceRetention>(*m_workspaces, m_clock);
    registerWorkspaceTools(m_tools, *m_workspaces, *m_approvals);

    // One control channel per running sandbox (the attacher SandboxService calls after create and
    // on re-attach), bash sessions and the in-sandbox tools.
    m_bashSessions = std::make_unique<BashSessions>(*m_db, *m_channels, m_clock);
    m_sandboxes->setAttacher(m_channels.get());
    m_warm = std::make_unique<WarmPool>(m_config, *m_db, *m_sbx, m_clock);
    m_warm->setAttacher(m_channels.get());
    m_sandboxes->setWarmPool(m_warm.get());
    registerInSandboxTools(m_tools, *m_sandboxes, *m_channels, *m_bashSessions);
    ImportFileOptions import;
    import.allowedHosts = m_config.importFileHosts;
    import.maxBytes = static_cast<qint64>(m_config.importFileMaxMiB) * 1024 * 1024;
    import.extraCaFile = m_config.testImportCaFile;
    registerImportFileTool(m_tools, *m_sandboxes, *m_channels, import);
    m_activity = std::make_unique<ActivityMonitor>(*m_db, *m_sandboxes, *m_bashSessions, *m_channels);
    // Idle sandboxes sleep (VM stopped, files kept) and wake on their next tool call.
    m_sleep = std::make_unique<SandboxSleep>(*m_sandboxes, *m_channels, *m_bashSessions, *m_sbx, m_clock);
    connect(this, &Controller::toolCallAudited, m_activity.get(), &ActivityMonitor::toolCallRecorded);

    // Review and export of the agent's work; also what destroy and idle expiry ask first.
    m_hostGit = std::make_unique<HostGit>();
    m_changes = std::make_unique<ChangesService>(*m_sandboxes, *m_channels, *m_hostGit);
    m_sandboxes->setDestroyGuard(m_changes.get());
    registerChangesTools(m_tools, *m_sandboxes, *m_changes);
    m_removal = std::make_unique<WorkspaceRemoval>(*m_workspaces, *m_sandboxes, *m_retention);
}

Controller::~Controller()
{
    if (m_http)
        m_http.reset();
}

Database &Controller::database()
{
    return *m_db;
}

QString Controller::localToken() const
{
    return m_config.requireLocalToken && m_localTokens ? m_localTokens->token() : QString();
}

QHttpServer &Controller::http()
{
    if (!m_http)
        m_http = std::make_unique<QHttpServer>();
    return *m_http;
}

void Controller::setState(State s)
{
    if (m_state == s)
        return;
    m_state = s;
    emit stateChanged(s);
}

void Controller::fail(const QString &reason)
{
    qCWarning(lcController).noquote() << reason;
    setState(State::Failed);
    emit failed(reason);
}

bool Controller::openDatabase(QString &error)
{
    if (!QDir().mkpath(m_config.dataRoot)) {
        error = QStringLiteral("cannot create data root %1").arg(m_config.dataRoot);
        return false;
    }
    QFile::setPermissions(m_config.dataRoot, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    if (!m_db->open(m_config.databasePath, error))
        return false;
    m_db->setBusyTimeout(Database::kServerBusyTimeoutMs);
    QString checkpointError;
    if (!m_db->checkpointInBackground(checkpointError))   // SQLite's own checkpoint stays on
        qCWarning(lcController).noquote() << "WAL checkpoints stay on the event loop:" << checkpointError;
    return true;
}

bool Controller::listen(QString &error)
{
    const QHostAddress address = m_config.host == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                                               : QHostAddress(m_config.host);
    // Our own listening socket under QHttpServer: it bounds connections and request sizes before
    // QtHttpServer buffers anything (HttpConnectionGuard).
    auto *tcp = new HttpConnectionGuard(HttpConnectionGuard::Options{});
    if (!tcp->listen(address, m_config.port)) {
        error = QStringLiteral("cannot listen on %1:%2 (is another server using the port?): %3")
                    .arg(m_config.host).arg(m_config.port).arg(tcp->errorString());
        delete tcp;
        return false;
    }
    http().bind(tcp);
    const quint16 port = tcp->serverPort();
    m_listeningPort = port;
    return true;
}

void Controller::start()
{
    if (m_state == State::Starting || m_state == State::Running)
        return;
    setState(State::Starting);
    // Defer to the event loop so callers can connect to our signals first.
    QTimer::singleShot(0, this, [this] {
        const long fdLimit = raiseOpenFileLimit();
        qCDebug(lcController) << "open-file limit" << fdLimit;
        QString error;
        if (!openDatabase(error))
            return fail(error);
        m_pidFile = std::make_unique<PidFile>(m_config.pidFilePath());
        if (!m_pidFile->acquire(error))
            return fail(error);
        // Only the server holding the lock writes (and replays) the audit journal.
        QString journalError;
        if (!m_db->writeAuditRowsAhead(journalError))
            qCWarning(lcController).noquote() << "audit rows are written straight to the database:" << journalError;
        // Notice CLI decisions (data_version poll) and sweep managed workspaces hourly.
        m_approvals->startWatching();
        m_network->startWatching();
        m_retention->start();
        m_auditRetention = std::make_unique<AuditRetention>(*m_db, m_clock, m_config.auditRetentionDays,
                                                            m_config.auditMaxRows);
        m_auditRetention->start();
        installHealthEndpoint(http(), *this);
        // sbx present, version, sign-in, template: checked beside reconciliation, logged once.
        m_sbxHealth->start();
        // Reconcile records with `sbx ls` before listening (a missing sbx only warns).
        m_sandboxes->reconcile([this] { afterReconciliation(); });
    });
}

void Controller::afterReconciliation()
{
    if (m_state != State::Starting)
        return;
    m_sleep->start();
    // Load the local token (keychain, async) when required, then
    // install /mcp and listen.
    m_localTokens = std::make_unique<LocalTokenStore>(m_config.stateDir);
    if (!m_config.requireLocalToken)
        return listenAndRun();
    m_localTokens->load([this](const QString &tokenError) {
        if (m_state != State::Starting)
            return;   // stopped while the keychain was asked
        if (!tokenError.isEmpty())
            return fail(tokenError);
        listenAndRun();
    });
}

void Controller::listenAndRun()
{
    m_auditSink = std::make_unique<AuditLogSink>(*m_db);
    m_toolCalls = std::make_unique<ToolCallRunner>(m_tools, *m_auditSink, m_clock);
    connect(m_toolCalls.get(), &ToolCallRunner::audited, this, &Controller::toolCallAudited);
    m_dispatcher = std::make_unique<McpDispatcher>(m_tools, *m_toolCalls, m_clock, m_config.sessionIdleSeconds);
    m_mcp = std::make_unique<McpEndpoint>(*m_dispatcher, m_config, localToken());
    m_mcp->install(http());
    QString error;
    if (!listen(error))
        return fail(error);
    m_uptime.start();
    qCInfo(lcController).noquote() << "chat2sbx" << CHAT2SBX_VERSION << "listening on"
                                   << QStringLiteral("http://%1:%2/mcp").arg(m_config.host).arg(m_listeningPort);
    setState(State::Running);
    emit started();
    // The tunnel is last in the start order. Missing credentials leave the endpoint serving
    // locally and the tunnel Failed with the reason (status then exits non-zero and says why).
    if (m_config.enableTunnel) {
        m_tunnel->setLocalToken(m_config.localTokenHeader, localToken());
        m_tunnel->start(m_listeningPort);
    } else {
        qCInfo(lcController) << "tunnel disabled (CHAT2SBX_ENABLE_TUNNEL=0): local-only";
    }
}

void Controller::stop()
{
    if (m_state == State::Stopped || m_state == State::Stopping)
        return;
    setState(State::Stopping);
    QTimer::singleShot(0, this, [this] {
        m_mcp.reset();
        m_dispatcher.reset();
        m_toolCalls.reset();   // cancels pending tool calls first
        m_activity->setWatching(false);
        m_sleep->stop();
        m_sandboxes->shutdown();
        m_sbxHealth->stop();
        m_approvals->stopWatching();
        m_network->stopWatching();
        m_retention->stop();
        if (m_auditRetention)
            m_auditRetention->stop();
        m_http.reset();
        // Close the endpoint, then wait (asynchronously) for the tunnel client to exit.
        connect(m_tunnel.get(), &TunnelSupervisor::stopped, this, &Controller::finishStop, Qt::SingleShotConnection);
        m_tunnel->stop();
    });
}

void Controller::finishStop()
{
    if (m_pidFile)
        m_pidFile->release();
    m_db->close();
    setState(State::Stopped);
    emit stopped();
}

} // namespace chat2sbx
