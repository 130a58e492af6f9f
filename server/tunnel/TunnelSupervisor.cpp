#include "tunnel/TunnelSupervisor.h"

#include <QFileInfo>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcessEnvironment>
#include <QTcpServer>

#include <csignal>

#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcTunnel, "chat2sbx.tunnel")

namespace {

const QString kKeyEnv = QStringLiteral("CHAT2SBX_TUNNEL_KEY");
const QString kLocalTokenEnv = QStringLiteral("CHAT2SBX_LOCAL_TOKEN");
constexpr int kPollStartingMs = 250;
constexpr int kPollReadyMs = 2000;
constexpr int kPollTimeoutMs = 2000;
constexpr qint64 kBackoffMaxMs = 60000;
constexpr qint64 kStableMs = 60000;
constexpr int kMaxLineChars = 400;

quint16 pickFreeLoopbackPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        return 0;
    return probe.serverPort();
}

} // namespace

TunnelSupervisor::TunnelSupervisor(const Config &config, QObject *parent)
    : QObject(parent), m_config(config),
      m_backoff(config.tunnelBackoffMs, qMax<qint64>(kBackoffMaxMs, config.tunnelBackoffMs), kStableMs)
{
    m_nam.setProxy(QNetworkProxy::NoProxy);
    m_pollTimer.setSingleShot(false);
    connect(&m_pollTimer, &QTimer::timeout, this, &TunnelSupervisor::pollReadiness);
    m_restartTimer.setSingleShot(true);
    m_restartTimer.setTimerType(Qt::PreciseTimer);   // a coarse timer may fire 5% early
    m_killTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_restartTimer, &QTimer::timeout, this, [this] {
        ++m_restarts;
        qCInfo(lcTunnel).noquote() << QStringLiteral("starting tunnel-client again (restart %1)").arg(m_restarts);
        launch();
    });
    m_killTimer.setSingleShot(true);
    connect(&m_killTimer, &QTimer::timeout, this, [this] {
        if (!m_process || m_process->state() == QProcess::NotRunning)
            return;
        qCWarning(lcTunnel).noquote() << QStringLiteral("tunnel-client (PID %1) did not exit within %2 ms of SIGTERM; sending SIGKILL")
                                             .arg(m_process->processId()).arg(m_config.tunnelStopGraceMs);
        m_process->kill();
    });
}

TunnelSupervisor::~TunnelSupervisor()
{
    // Normally stop() has already reaped the child. If not (the owner is torn down abruptly), kill it
    // rather than leave it behind; QProcess's destructor then reaps the killed child.
    if (m_process) {
        m_process->disconnect(this);
        if (m_process->state() != QProcess::NotRunning)
            m_process->kill();
    }
}

void TunnelSupervisor::setLocalToken(const QString &headerName, const QString &token)
{
    m_localTokenHeader = headerName;
    m_localToken = token;
}

QString TunnelSupervisor::stateName(State state)
{
    switch (state) {
    case State::Stopped: return QStringLiteral("stopped");
    case State::Starting: return QStringLiteral("starting");
    case State::Ready: return QStringLiteral("ready");
    case State::Failed: return QStringLiteral("failed");
    }
    return {};
}

QString TunnelSupervisor::healthUrl() const
{
    if (!m_process || m_healthPort == 0)
        return {};
    return QStringLiteral("http://127.0.0.1:%1/healthz").arg(m_healthPort);
}

qint64 TunnelSupervisor::childPid() const
{
    return m_process ? m_process->processId() : 0;
}

qint64 TunnelSupervisor::nextRestartInMs() const
{
    return m_restartTimer.isActive() ? m_restartTimer.remainingTime() : -1;
}

QJsonObject TunnelSupervisor::toJson() const
{
    QJsonObject o{
        {QStringLiteral("state"), stateName(m_state)},
        {QStringLiteral("restarts"), m_restarts},
    };
    o.insert(QStringLiteral("lastError"), m_lastError.isEmpty() ? QJsonValue() : QJsonValue(m_lastError));
    o.insert(QStringLiteral("readiness"), m_readinessDetail.isEmpty() ? QJsonValue() : QJsonValue(m_readinessDetail));
    const QString url = healthUrl();
    o.insert(QStringLiteral("healthUrl"), url.isEmpty() ? QJsonValue() : QJsonValue(url));
    const qint64 pid = childPid();
    o.insert(QStringLiteral("pid"), pid > 0 ? QJsonValue(pid) : QJsonValue());
    const qint64 next = nextRestartInMs();
    o.insert(QStringLiteral("nextRestartInMs"), next >= 0 ? QJsonValue(next) : QJsonValue());
    return o;
}

void TunnelSupervisor::setState(State state)
{
    if (m_state == state) {
        emit statusChanged();
        return;
    }
    m_state = state;
    emit stateChanged(state);
    emit statusChanged();
}

void TunnelSupervisor::failPermanently(const QString &error)
{
    m_lastError = error;
    qCWarning(lcTunnel).noquote() << "tunnel not started:" << error;
    setState(State::Failed);
}

void TunnelSupervisor::start(quint16 mcpPort)
{
    if (m_state == State::Starting || m_state == State::Ready || m_process || m_restartTimer.isActive())
        return;
    m_mcpPort = mcpPort;
    m_stopping = false;
    m_lastError.clear();
    m_backoff.reset();
    const quint64 generation = ++m_generation;
    setState(State::Starting);
    QPointer<TunnelSupervisor> self(this);
    TunnelCredentials::load(m_config, [self, generation](const TunnelCredentials &credentials, const QString &error) {
        if (!self || self->m_generation != generation || self->m_stopping)
            return;
        if (!error.isEmpty())
            return self->failPermanently(error);
        self->m_credentials = credentials;
        qCInfo(lcTunnel).noquote() << "tunnel credentials from" << credentials.source;
        self->launch();
    });
}

QString TunnelSupervisor::mcpServerUrl() const
{
    QString host = m_config.host;
    QHostAddress address(host);
    if (host == QLatin1String("localhost") || address == QHostAddress::AnyIPv4 || address == QHostAddress::Any ||
        address == QHostAddress::AnyIPv6)
        host = QStringLiteral("127.0.0.1");
    else if (host.contains(QLatin1Char(':')))
        host = QStringLiteral("[%1]").arg(host);
    return QStringLiteral("http://%1:%2/mcp").arg(host).arg(m_mcpPort);
}

QStringList TunnelSupervisor::arguments() const
{
    QStringList args{
        QStringLiteral("run"),
        QStringLiteral("--control-plane.tunnel-id=%1").arg(m_credentials.tunnelId),
        QStringLiteral("--control-plane.api-key=env:%1").arg(kKeyEnv),
        QStringLiteral("--mcp.server-url=%1").arg(mcpServerUrl()),
        QStringLiteral("--health.listen-addr=127.0.0.1:%1").arg(m_healthPort),
        QStringLiteral("--log.level=info"),
    };
    if (!m_localToken.isEmpty() && !m_localTokenHeader.isEmpty())
        args << QStringLiteral("--mcp.extra-headers") << QStringLiteral("%1: env:%2").arg(m_localTokenHeader, kLocalTokenEnv);
    return args;
}

void TunnelSupervisor::launch()
{
    const QString program = m_config.tunnelClient;
    const QFileInfo info(program);
    if (!info.exists())
        return failPermanently(QStringLiteral("tunnel-client not found at %1 (install it, set CHAT2SBX_TUNNEL_CLIENT, "
                                              "or run local-only with CHAT2SBX_ENABLE_TUNNEL=0)").arg(program));
    if (!info.isFile() || !info.isExecutable())
        return failPermanently(QStringLiteral("%1 is not an executable file (CHAT2SBX_TUNNEL_CLIENT)").arg(program));
    m_healthPort = pickFreeLoopbackPort();
    if (m_healthPort == 0)
        return failPermanently(QStringLiteral("no free loopback port for the tunnel-client health listener"));

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("CHAT2SBX_BEARER_TOKEN"));
    env.insert(kKeyEnv, m_credentials.key);
    if (!m_localToken.isEmpty())
        env.insert(kLocalTokenEnv, m_localToken);
    else
        env.remove(kLocalTokenEnv);

    m_outputBuffer.clear();
    m_lastChildLine.clear();
    m_readinessDetail.clear();
    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(arguments());
    m_process->setProcessEnvironment(env);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    m_process->setStandardInputFile(QProcess::nullDevice());
#ifdef Q_OS_LINUX
    // If chat2sbx dies without stopping it (kill -9), the kernel sends the client SIGTERM.
    m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
#endif
    QProcess *process = m_process;
    connect(process, &QProcess::readyReadStandardOutput, this, &TunnelSupervisor::onChildOutput);
    connect(process, &QProcess::started, this, [this, process] {
        if (process != m_process)
            return;
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel-client started (PID %1), MCP %2, health %3")
                                          .arg(process->processId()).arg(mcpServerUrl(), healthUrl());
        if (m_stopping)
            process->terminate();
        emit statusChanged();
    });
    connect(process, &QProcess::finished, this, [this, process](int exitCode, QProcess::ExitStatus status) {
        if (process != m_process)
            return;
        onChildFinished(status == QProcess::CrashExit
                            ? QStringLiteral("tunnel-client was killed or crashed (exit code %1)").arg(exitCode)
                            : QStringLiteral("tunnel-client exited with code %1").arg(exitCode));
    });
    connect(process, &QProcess::errorOccurred, this, [this, process](QProcess::ProcessError error) {
        if (process != m_process || error != QProcess::FailedToStart)
            return;
        onChildFinished(QStringLiteral("cannot start %1: %2").arg(process->program(), process->errorString()));
    });
    setState(State::Starting);
    process->start();
    m_pollTimer.start(kPollStartingMs);
}

QString TunnelSupervisor::masked(QString text) const
{
    if (!m_credentials.key.isEmpty())
        text.replace(m_credentials.key, QStringLiteral("***"));
    if (!m_localToken.isEmpty())
        text.replace(m_localToken, QStringLiteral("***"));
    return text;
}

void TunnelSupervisor::onChildOutput()
{
    if (!m_process)
        return;
    m_outputBuffer += m_process->readAllStandardOutput();
    int newline;
    while ((newline = m_outputBuffer.indexOf('\n')) >= 0) {
        const QString line = masked(QString::fromUtf8(m_outputBuffer.left(newline)).trimmed());
        m_outputBuffer.remove(0, newline + 1);
        if (line.isEmpty())
            continue;
        m_lastChildLine = line.left(kMaxLineChars);
        qCInfo(lcTunnel).noquote() << "tunnel-client:" << m_lastChildLine;
    }
    if (m_outputBuffer.size() > 64 * 1024)
        m_outputBuffer.clear();   // a client writing one endless line: drop it rather than grow
}

void TunnelSupervisor::onChildFinished(const QString &why)
{
    QProcess *process = m_process;
    onChildOutput();
    m_process = nullptr;
    m_pollTimer.stop();
    if (m_poll)
        m_poll->abort();
    m_killTimer.stop();
    const qint64 readyForMs = m_state == State::Ready && m_readySince.isValid() ? m_readySince.elapsed() : 0;
    m_healthPort = 0;
    process->disconnect(this);
    process->deleteLater();

    if (m_stopping) {
        qCInfo(lcTunnel).noquote() << "tunnel-client stopped";
        setState(State::Stopped);
        emit stopped();
        return;
    }
    m_lastError = m_lastChildLine.isEmpty() ? why : QStringLiteral("%1; last output: %2").arg(why, m_lastChildLine);
    const qint64 delay = m_backoff.nextDelayMs(readyForMs);
    const int attempt = m_backoff.consecutiveFailures();
    qCWarning(lcTunnel).noquote() << QStringLiteral("%1; restarting in %2 ms (consecutive failure %3)")
                                         .arg(m_lastError).arg(delay).arg(attempt);
    m_restartTimer.start(static_cast<int>(delay));
    setState(State::Failed);
    emit restartScheduled(delay, attempt);
}

void TunnelSupervisor::pollReadiness()
{
    if (!m_process || m_process->state() != QProcess::Running || m_poll || m_healthPort == 0)
        return;
    QNetworkRequest request(QUrl(QStringLiteral("http://127.0.0.1:%1/readyz").arg(m_healthPort)));
    request.setTransferTimeout(kPollTimeoutMs);
    QNetworkReply *reply = m_nam.get(request);
    m_poll = reply;
    const quint64 generation = m_generation;
    QProcess *process = m_process;
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, process] {
        reply->deleteLater();
        if (m_poll == reply)
            m_poll = nullptr;
        if (generation != m_generation || process != m_process || m_stopping)
            return;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200) {
            m_readinessDetail.clear();
            if (m_state != State::Ready) {
                m_readySince.start();
                m_lastError.clear();
                qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel ready (tunnel-client PID %1)").arg(process->processId());
                m_pollTimer.start(kPollReadyMs);
                setState(State::Ready);
            }
            return;
        }
        const QString body = masked(QString::fromUtf8(reply->readAll().left(kMaxLineChars)).simplified());
        m_readinessDetail = status > 0 ? QStringLiteral("/readyz answered HTTP %1%2")
                                             .arg(status).arg(body.isEmpty() ? QString() : QStringLiteral(": ") + body)
                                       : QStringLiteral("/readyz: %1").arg(reply->errorString());
        if (m_state == State::Ready) {
            m_lastError = QStringLiteral("tunnel-client is no longer ready (%1)").arg(m_readinessDetail);
            qCWarning(lcTunnel).noquote() << m_lastError;
            m_readySince.invalidate();
            m_pollTimer.start(kPollStartingMs);
            setState(State::Starting);
        }
    });
}

void TunnelSupervisor::stop()
{
    m_stopping = true;
    ++m_generation;
    m_restartTimer.stop();
    m_pollTimer.stop();
    if (m_poll)
        m_poll->abort();
    if (!m_process) {
        setState(State::Stopped);   // lastError() keeps why it had failed, if it had
        QTimer::singleShot(0, this, [this] { emit stopped(); });
        return;
    }
    qCInfo(lcTunnel).noquote() << QStringLiteral("stopping tunnel-client (PID %1): SIGTERM, SIGKILL after %2 ms")
                                      .arg(m_process->processId()).arg(m_config.tunnelStopGraceMs);
    if (m_process->state() == QProcess::Running)
        m_process->terminate();
    m_killTimer.start(m_config.tunnelStopGraceMs);
}

} // namespace chat2sbx
