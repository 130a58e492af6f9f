#include "runtime/Controller.h"

#include "sandbox/changes/SandboxMover.h"

#include "config/LocalTokenStore.h"
#include "http/BoundedTcpServer.h"
#include "mcp/McpDispatcher.h"
#include "runtime/ChatGptSilence.h"
#include "runtime/ChatGptToolList.h"
#include "state/SettingsRepository.h"
#include "mcp/McpEndpoint.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/changes/ExportApprovals.h"
#include "mcp/ToolCallRunner.h"
#include "runtime/AuditLogSink.h"
#include "runtime/FdLimit.h"
#include "runtime/HealthEndpoint.h"
#include "runtime/ControlChannel.h"
#include "runtime/PidFile.h"
#include "runtime/Services.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/CloudWarmPool.h"
#include "sandbox/lifecycle/ActivityMonitor.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxSleep.h"
#include "sandbox/sbx/SbxHealth.h"
#include "state/AuditRetention.h"
#include "state/Database.h"
#include "tunnel/TunnelSupervisor.h"
#include "sandbox/network/NetworkAccess.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceRetention.h"
#include "workspace/WorkspaceService.h"

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
    : QObject(parent), m_config(config), m_clock(clock), m_services(m_config, m_clock)
{
    connect(this, &Controller::toolCallAudited, m_services.activity.get(), &ActivityMonitor::toolCallRecorded);
}

Controller::~Controller()
{
    if (m_http)
        m_http.reset();
    m_services.tunnel.reset();   // the tunnel client goes first, before anything it could report to
}

Database &Controller::database()
{
    return *m_services.db;
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
    if (!m_services.openDatabase(error))
        return false;
    m_services.db->setBusyTimeout(Database::kServerBusyTimeoutMs);
    QString checkpointError;
    if (!m_services.db->checkpointInBackground(checkpointError))   // SQLite's own checkpoint stays on
        qCWarning(lcController).noquote() << "WAL checkpoints stay on the event loop:" << checkpointError;
    return true;
}

bool Controller::listen(QString &error)
{
    const QHostAddress address = m_config.host == QLatin1String("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                                               : QHostAddress(m_config.host);
    // Our own listening socket under QHttpServer: it bounds connections and request sizes before
    // QtHttpServer buffers anything (BoundedTcpServer).
    auto *tcp = new BoundedTcpServer(BoundedTcpServer::Options{});
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

namespace {
void (*g_controlHandlerInstaller)(Controller &) = nullptr;
} // namespace

bool Controller::setControlHandlerInstaller(void (*installer)(Controller &))
{
    g_controlHandlerInstaller = installer;
    return true;
}

void Controller::start()
{
    if (!m_controlHandler && g_controlHandlerInstaller)
        g_controlHandlerInstaller(*this);
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
        m_lockWait.start();
        takeLock();
    });
}

void Controller::takeLock()
{
    if (m_state != State::Starting)
        return;   // stopped while it waited
    QString error;
    if (!m_pidFile->acquire(error)) {
        // A CLI verb acting while no server ran holds the lock until it is done: wait for it.
        if (PidFile::heldByCommand(m_config.pidFilePath()) && m_lockWait.elapsed() < kWaitForCommandMs) {
            if (!m_waitedForCommand)
                qCInfo(lcController).noquote() << QStringLiteral("waiting for a chat2sbx command (PID %1) to finish")
                                                      .arg(PidFile::runningPid(m_config.pidFilePath()));
            m_waitedForCommand = true;
            QTimer::singleShot(kLockRetryMs, this, &Controller::takeLock);
            return;
        }
        return fail(error);
    }
    // Only the server holding the lock writes (and replays) the audit journal.
    QString journalError;
    if (!m_services.db->writeAuditRowsAhead(journalError))
        qCWarning(lcController).noquote() << "audit rows are written straight to the database:" << journalError;
    // Requests pending from before count as announced; managed workspaces are swept hourly.
    m_services.approvals->start();
    m_services.network->start();
    m_services.exportApprovals->start();
    m_services.checkpoints->reconcile();   // what a crash left half-saved goes, before any tool call
    m_services.mover->finishInterrupted();   // moves a crash interrupted: held before reconciliation
    m_services.retention->start();
    m_auditRetention = std::make_unique<AuditRetention>(*m_services.db, m_clock, m_config.auditRetentionDays,
                                                        m_config.auditMaxRows);
    m_auditRetention->start();
    installHealthEndpoint(http(), *this);
    // sbx present, version, sign-in, template: checked beside reconciliation, logged once.
    m_services.sbxHealth->start();
    // Reconcile records with `sbx ls` before listening (a missing sbx only warns).
    m_services.sandboxes->reconciler().reconcile([this] { afterReconciliation(); });
}

void Controller::afterReconciliation()
{
    if (m_state != State::Starting)
        return;
    m_services.sleep->start();
    if (m_services.cloudWarm)
        m_services.cloudWarm->start();
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
    m_auditSink = std::make_unique<AuditLogSink>(*m_services.db);
    m_toolCalls = std::make_unique<ToolCallRunner>(m_services.tools, *m_auditSink, m_clock);
    connect(m_toolCalls.get(), &ToolCallRunner::audited, this, &Controller::toolCallAudited);
    m_dispatcher = std::make_unique<McpDispatcher>(m_services.tools, *m_toolCalls, m_clock, m_config.sessionIdleSeconds);
    m_settings = std::make_unique<SettingsRepository>(*m_services.db);
    m_chatGptTools = std::make_unique<ChatGptToolList>(*m_settings, m_clock);
    m_chatGptTools->setCurrentList(m_services.tools.listResultJson());   // every tool is registered by now
    connect(m_dispatcher.get(), &McpDispatcher::toolListServedToChatGpt, m_chatGptTools.get(), &ChatGptToolList::servedToChatGpt);
    m_chatGptSilence = std::make_unique<ChatGptSilence>(m_clock);
    connect(m_dispatcher.get(), &McpDispatcher::toolCalledInConversation, m_chatGptSilence.get(), &ChatGptSilence::noteCall);
    m_mcp = std::make_unique<McpEndpoint>(*m_dispatcher, m_config, localToken());
    m_mcp->install(http());
    QString error;
    if (!listen(error))
        return fail(error);
    m_uptime.start();
    // From now on the CLI's verbs that change state are requests to this process.
    m_control = std::make_unique<ControlChannel>(m_config.controlSocketPath());
    m_control->setHandler([this](const QJsonObject &request, ControlChannel::Reply reply) {
        if (!m_controlHandler)
            return reply(ControlChannel::refusal(QStringLiteral("this server takes no commands")));
        m_controlHandler(request, std::move(reply));
    });
    QString controlError;
    if (!m_control->listen(controlError)) {
        qCWarning(lcController).noquote() << "no control channel, CLI commands that change state will say so:" << controlError;
        m_control.reset();
    }
    qCInfo(lcController).noquote() << "chat2sbx" << CHAT2SBX_VERSION << "listening on"
                                   << QStringLiteral("http://%1:%2/mcp").arg(m_config.host).arg(m_listeningPort);
    setState(State::Running);
    emit started();
    // The tunnel is last in the start order. Missing credentials leave the endpoint serving
    // locally and the tunnel Failed with the reason (status then exits non-zero and says why).
    if (m_config.enableTunnel) {
        m_services.tunnel->setLocalToken(m_config.localTokenHeader, localToken());
        m_services.tunnel->start(m_listeningPort);
    } else {
        qCInfo(lcController) << "tunnel disabled (CHAT2SBX_ENABLE_TUNNEL=0): local-only";
    }
}

void Controller::reconnectTunnel()
{
    if (!m_config.enableTunnel || m_state != State::Running)
        return;
    // stop() ends the client (and a pending restart) and emits stopped() later, also without a client.
    TunnelSupervisor &tunnel = *m_services.tunnel;
    connect(&tunnel, &TunnelSupervisor::stopped, this, [this] {
        if (m_state == State::Running)   // not when the server began to stop meanwhile
            m_services.tunnel->start(m_listeningPort);
    }, Qt::SingleShotConnection);
    tunnel.stop();
}

void Controller::stop(Ending ending)
{
    if (m_state == State::Stopped || m_state == State::Stopping)
        return;
    setState(State::Stopping);
    m_control.reset();   // a CLI verb now acts only once this server is gone
    QTimer::singleShot(0, this, [this, ending] {
        m_mcp.reset();
        m_dispatcher.reset();
        m_toolCalls.reset();   // cancels pending tool calls first
        m_services.activity->setWatching(false);
        m_services.sleep->stop();
        m_services.channels->beginExit(ending == Ending::Process ? ChannelPool::InputEnds::WithProcess
                                                                  : ChannelPool::InputEnds::WithPool);
        m_services.sandboxes->reconciler().shutdown();
        m_services.sbxHealth->stop();
        m_services.retention->stop();
        if (m_auditRetention)
            m_auditRetention->stop();
        m_http.reset();
        // Close the endpoint, then wait (asynchronously) for the tunnel client to exit.
        connect(m_services.tunnel.get(), &TunnelSupervisor::stopped, this, &Controller::finishStop, Qt::SingleShotConnection);
        m_services.tunnel->stop();
    });
}

void Controller::finishStop()
{
    if (m_pidFile)
        m_pidFile->release();
    m_services.db->close();
    setState(State::Stopped);
    emit stopped();
}

} // namespace chat2sbx
