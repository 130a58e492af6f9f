#include "runtime/Controller.h"

#include "config/LocalTokenStore.h"
#include "mcp/McpEndpoint.h"
#include "runtime/HealthEndpoint.h"
#include "runtime/PidFile.h"
#include "state/Database.h"
#include "sandbox/SandboxService.h"      // [sandboxes]
#include "sandbox/SbxDriver.h"           // [sandboxes]
#include "sandbox/WarmPool.h"
#include "tools/SandboxTools.h"          // [sandboxes]
#include "tools/WorkspaceTools.h"        // issue 6
#include "workspace/ApprovalService.h"   // issue 6
#include "workspace/WorkspaceRetention.h" // issue 6
#include "workspace/WorkspaceService.h"
#include "tunnel/TunnelSupervisor.h"
#include "sandbox/BashSessions.h"        // [insandbox]
#include "sandbox/ChannelPool.h"         // [insandbox]
#include "tools/InSandboxTools.h"        // [insandbox]

#include <QDir>
#include <QHostAddress>
#include <QHttpServer>
#include <QLoggingCategory>
#include <QTimer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcController, "chat2sbx.controller")

Controller::Controller(const Config &config, QObject *parent)
    : QObject(parent), m_config(config), m_db(std::make_unique<Database>()),
      m_tunnel(std::make_unique<TunnelSupervisor>(config))   // tunnel
{
    // [sandboxes] sbx driver, workspaces, sandbox lifecycle and its tools.
    m_sbx = std::make_unique<SbxDriver>(m_config.sbxPath);
    m_workspaces = std::make_unique<WorkspaceService>(m_config, *m_db, m_serviceClock);
    m_sandboxes = std::make_unique<SandboxService>(m_config, *m_db, *m_workspaces, *m_sbx, m_serviceClock);
    registerSandboxTools(m_tools, *m_sandboxes, m_config);
    // --- workspaces and approvals (issue 6)
    m_approvals = std::make_unique<ApprovalService>(*m_workspaces, *m_db, m_serviceClock);
    m_retention = std::make_unique<WorkspaceRetention>(*m_workspaces, m_serviceClock);
    registerWorkspaceTools(m_tools, *m_workspaces, *m_approvals);
    // --- end issue 6

    // [insandbox] one control channel per running sandbox (the attacher SandboxService calls after
    // create and on re-attach), bash sessions and the in-sandbox tools (issue 5).
    m_channels = std::make_unique<ChannelPool>(*m_sbx);
    m_bashSessions = std::make_unique<BashSessions>(*m_db, *m_channels, m_serviceClock);
    m_sandboxes->setAttacher(m_channels.get());
    m_warm = std::make_unique<WarmPool>(m_config, *m_db, *m_sbx, m_serviceClock);
    m_warm->setAttacher(m_channels.get());
    m_sandboxes->setWarmPool(m_warm.get());
    registerInSandboxTools(m_tools, *m_sandboxes, *m_channels, *m_bashSessions);
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
    return m_db->open(m_config.databasePath, error);
}

bool Controller::listen(QString &error)
{
    const QHostAddress address = m_config.host == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                                               : QHostAddress(m_config.host);
    const quint16 port = http().listen(address, m_config.port);
    if (port == 0) {
        error = QStringLiteral("cannot listen on %1:%2 (is another server using the port?)")
                    .arg(m_config.host).arg(m_config.port);
        return false;
    }
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
        QString error;
        if (!openDatabase(error))
            return fail(error);
        m_pidFile = std::make_unique<PidFile>(m_config.pidFilePath());
        if (!m_pidFile->acquire(error))
            return fail(error);
        // --- issue 6: notice CLI decisions (data_version poll) and sweep managed workspaces hourly.
        m_approvals->startWatching();
        m_retention->start();
        // --- end issue 6
        installHealthEndpoint(http(), *this);
        // [sandboxes] Reconcile records with `sbx ls` before listening (a missing sbx only warns).
        m_sandboxes->reconcile([this] { afterReconciliation(); });
    });
}

void Controller::afterReconciliation()
{
    if (m_state != State::Starting)
        return;
    // --- MCP endpoint (issue 3): load the local token (keychain, async) when required, then
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
    m_mcp = std::make_unique<McpEndpoint>(m_tools, *m_db, m_config, *m_clock, localToken());
    m_mcp->install(http());
    // --- end MCP endpoint
    QString error;
    if (!listen(error))
        return fail(error);
    m_uptime.start();
    qCInfo(lcController).noquote() << "chat2sbx" << CHAT2SBX_VERSION << "listening on"
                                   << QStringLiteral("http://%1:%2/mcp").arg(m_config.host).arg(m_listeningPort);
    setState(State::Running);
    emit started();
    // tunnel (issue 7): last in the start order. Missing credentials leave the endpoint serving
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
        m_mcp.reset();   // MCP endpoint (issue 3): cancels pending tool calls first
        m_sandboxes->shutdown();   // [sandboxes]
        m_approvals->stopWatching();   // issue 6
        m_retention->stop();           // issue 6
        m_http.reset();
        // tunnel (issue 7): close the endpoint, then wait (asynchronously) for the tunnel client to exit.
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
