#include "tunnel/TunnelSupervisor.h"

#include "core/Clock.h"
#include "tunnel/TunnelClientLaunch.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QProcessEnvironment>
#include <QRegularExpression>

#include <cmath>
#include <csignal>

#ifdef Q_OS_LINUX
#include <sys/prctl.h>
#endif

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcTunnel, "chat2sbx.tunnel")

namespace {

constexpr int kPollStartingMs = 250;
constexpr int kPollSteadyMs = 2000;
constexpr int kHttpTimeoutMs = 2000;
constexpr qint64 kBackoffMaxMs = 60000;
constexpr qint64 kStableMs = 60000;
constexpr int kMaxLineChars = 400;
constexpr qint64 kMaxOutputBuffer = 64 * 1024;
// The client long-polls for up to 30 s (plus a guardrail); a successful poll older than this means the
// tunnel service is no longer answering.
constexpr qint64 kPollFreshSeconds = 90;

// /readyz bodies that never turn into "ready" in the same process (pkg/runtimehealth/health.go).
bool isFinalReadinessFailure(const QString &body)
{
    return body.startsWith(QLatin1String("mcp probe failed")) || body.startsWith(QLatin1String("mcp startup wait failed"))
           || body.startsWith(QLatin1String("oauth discovery failed"));
}

qint64 nowMs() { return Clock::system().nowMs(); }

} // namespace

TunnelSupervisor::TunnelSupervisor(const Config &config, QObject *parent)
    : QObject(parent), m_config(config),
      m_backoff(config.tunnelBackoffMs, qMax<qint64>(kBackoffMaxMs, config.tunnelBackoffMs), kStableMs)
{
    m_nam.setProxy(QNetworkProxy::NoProxy);
    connect(&m_pollTimer, &QTimer::timeout, this, &TunnelSupervisor::pollHealth);
    m_readyDeadline.setSingleShot(true);
    connect(&m_readyDeadline, &QTimer::timeout, this, [this] {
        restartClient(QStringLiteral("tunnel-client was not ready within %1 s%2")
                          .arg(m_config.tunnelReadyTimeoutMs / 1000.0, 0, 'f', 1)
                          .arg(m_readinessDetail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m_readinessDetail)));
    });
    m_restartTimer.setSingleShot(true);
    m_restartTimer.setTimerType(Qt::PreciseTimer);   // a coarse timer may fire 5% early
    connect(&m_restartTimer, &QTimer::timeout, this, [this] {
        ++m_restarts;
        qCInfo(lcTunnel).noquote() << QStringLiteral("starting tunnel-client again (restart %1)").arg(m_restarts);
        launch();
    });
    m_killTimer.setSingleShot(true);
    m_killTimer.setTimerType(Qt::PreciseTimer);
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
    case State::Connected: return QStringLiteral("connected");
    case State::Unauthorized: return QStringLiteral("unauthorized");
    case State::Failed: return QStringLiteral("failed");
    }
    return {};
}

QString TunnelSupervisor::unauthorizedAdvice(int httpStatus)
{
    return QStringLiteral("the tunnel service refused our polls (HTTP %1): the tunnel key or id was refused, or the key "
                          "lacks Tunnels Read+Use: check the tunnel id at https://platform.openai.com/settings/organization/tunnels "
                          "and the runtime key and its permissions at https://platform.openai.com/settings/organization/api-keys, "
                          "put them in the secret directory and run `chat2sbx tunnel import` again")
        .arg(httpStatus);
}

QString TunnelSupervisor::healthUrl() const
{
    return m_process && !m_healthBase.isEmpty() ? m_healthBase + QStringLiteral("/healthz") : QString();
}

qint64 TunnelSupervisor::childPid() const
{
    return m_process ? m_process->processId() : 0;
}

qint64 TunnelSupervisor::nextRestartInMs() const
{
    return m_restartTimer.isActive() ? m_restartTimer.remainingTime() : -1;
}

qint64 TunnelSupervisor::lastPollAgeSeconds() const
{
    return m_lastPollSuccessS > 0 ? qMax<qint64>(0, nowMs() / 1000 - static_cast<qint64>(m_lastPollSuccessS)) : -1;
}

QJsonObject TunnelSupervisor::toJson() const
{
    auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    QJsonObject o{
        {QStringLiteral("state"), stateName(m_state)},
        {QStringLiteral("detail"), orNull(m_detail)},
        {QStringLiteral("lastError"), orNull(m_lastError)},
        {QStringLiteral("readiness"), orNull(m_readinessDetail)},
        {QStringLiteral("restarts"), m_restarts},
        {QStringLiteral("healthUrl"), orNull(healthUrl())},
    };
    const qint64 pid = childPid();
    o.insert(QStringLiteral("pid"), pid > 0 ? QJsonValue(pid) : QJsonValue());
    const qint64 next = nextRestartInMs();
    o.insert(QStringLiteral("nextRestartInMs"), next >= 0 ? QJsonValue(next) : QJsonValue());
    const qint64 age = lastPollAgeSeconds();
    o.insert(QStringLiteral("lastPollAgeS"), age >= 0 ? QJsonValue(age) : QJsonValue());
    if (m_notSetUp)
        o.insert(QStringLiteral("notSetUp"), true);
    if (m_details)
        o.insert(QStringLiteral("components"),
                 QJsonObject{{QStringLiteral("controlPlane"), orNull(m_details->controlPlane.status)},
                             {QStringLiteral("responseDelivery"), orNull(m_details->responseDelivery.status)}});
    return o;
}

void TunnelSupervisor::setState(State state, const QString &detail)
{
    const bool changed = m_state != state;
    const bool detailChanged = m_detail != detail;
    m_state = state;
    m_detail = detail;
    if (changed) {
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel %1%2").arg(stateName(state), detail.isEmpty() ? QString() : QStringLiteral(": ") + detail);
        emit stateChanged(state);
    }
    if (changed || detailChanged)
        emit statusChanged();
}

void TunnelSupervisor::failPermanently(const QString &error)
{
    m_lastError = error;
    qCWarning(lcTunnel).noquote() << "tunnel not started:" << error;
    setState(State::Failed, error);
}

void TunnelSupervisor::start(quint16 mcpPort)
{
    if (m_state == State::Starting || m_state == State::Connected || m_state == State::Unauthorized || m_process
        || m_restartTimer.isActive())
        return;
    m_mcpPort = mcpPort;
    m_stopping = false;
    m_lastError.clear();
    m_notSetUp = false;
    m_backoff.reset();
    const quint64 generation = ++m_generation;
    setState(State::Starting, QStringLiteral("reading the tunnel credentials"));
    QPointer<TunnelSupervisor> self(this);
    TunnelCredentials::load(m_config, [self, generation](const TunnelCredentials &credentials, const QString &error) {
        if (!self || self->m_generation != generation || self->m_stopping)
            return;
        if (!error.isEmpty()) {
            self->m_notSetUp = credentials.noFiles;
            return self->failPermanently(error);
        }
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

QString TunnelSupervisor::healthUrlFilePath() const
{
    return m_config.stateDir + QStringLiteral("/tunnel-client-health.url");
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

    TunnelClientLaunch spec;
    spec.tunnelId = m_credentials.tunnelId;
    spec.mcpServerUrl = mcpServerUrl();
    spec.healthUrlFile = healthUrlFilePath();
    spec.startupWaitMs = m_config.tunnelReadyTimeoutMs / 2;
    if (!m_localToken.isEmpty())
        spec.localTokenHeader = m_localTokenHeader;
    QStringList refused;
    const QProcessEnvironment env = TunnelClientLaunch::environment(QProcessEnvironment::systemEnvironment(), m_config.tunnelEnv,
                                                                    m_credentials.key, m_localToken, &refused);
    if (!refused.isEmpty())
        qCWarning(lcTunnel).noquote() << "not passed to tunnel-client (it would read them as its own settings):"
                                      << refused.join(QStringLiteral(", "));
    QDir().mkpath(m_config.stateDir);
    QFile::remove(spec.healthUrlFile);   // a stale file from an earlier client must not be taken for this one's

    m_outputBuffer.clear();
    m_lastErrorLine.clear();
    m_readinessDetail.clear();
    m_restartReason.clear();
    m_healthBase.clear();
    m_readyzOk = false;
    m_lastPollSuccessS = 0;
    m_detailsRoute = DetailsRoute::Unknown;   // another client may be another version
    m_details.reset();
    m_pollFailure = TunnelClientLine();
    m_pollFailureAtMs = 0;
    m_readySince.invalidate();

    m_process = new QProcess(this);
    m_process->setProgram(program);
    m_process->setArguments(spec.runArguments());
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
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel-client started (PID %1), MCP %2").arg(process->processId()).arg(mcpServerUrl());
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
    setState(State::Starting, QStringLiteral("waiting for tunnel-client to become ready"));
    process->start();
    m_readyDeadline.start(m_config.tunnelReadyTimeoutMs);
    m_pollTimer.start(kPollStartingMs);
}

// Stops a client that cannot become ready (or stopped being useful) so that the back-off starts a new one.
void TunnelSupervisor::restartClient(const QString &why)
{
    if (!m_process || m_stopping || !m_restartReason.isEmpty())
        return;
    m_restartReason = why;
    m_lastError = why;
    m_readyDeadline.stop();
    m_pollTimer.stop();
    qCWarning(lcTunnel).noquote() << why << "- stopping it to start a new one";
    setState(State::Failed, why);
    if (m_process->state() == QProcess::Running)
        m_process->terminate();
    m_killTimer.start(m_config.tunnelStopGraceMs);
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
    bool sawPollLine = false;
    qsizetype newline;
    while ((newline = m_outputBuffer.indexOf('\n')) >= 0) {
        const QString raw = masked(QString::fromUtf8(m_outputBuffer.left(newline)).trimmed());
        m_outputBuffer.remove(0, newline + 1);
        if (raw.isEmpty())
            continue;
        const TunnelClientLine line = TunnelClientLine::parse(raw.left(4 * kMaxLineChars));
        const QString text = line.text.left(kMaxLineChars);
        qCInfo(lcTunnel).noquote() << "tunnel-client:" << text;
        switch (line.kind) {
        case TunnelClientLine::Kind::PollFailed:
            m_pollFailure = line;
            m_pollFailure.text = text;
            m_pollFailureAtMs = nowMs();
            m_lastErrorLine = text;
            sawPollLine = true;
            break;
        case TunnelClientLine::Kind::PollRecovered:
            m_pollFailure = TunnelClientLine();
            m_pollFailureAtMs = 0;
            sawPollLine = true;
            break;
        case TunnelClientLine::Kind::Error:
            m_lastErrorLine = text;
            break;
        case TunnelClientLine::Kind::Info:
            break;
        }
    }
    if (m_outputBuffer.size() > kMaxOutputBuffer)
        m_outputBuffer.clear();   // a client writing one endless line: drop it rather than grow
    if (sawPollLine)
        evaluate();
}

void TunnelSupervisor::onChildFinished(const QString &why)
{
    QProcess *process = m_process;
    onChildOutput();
    m_process = nullptr;
    m_pollTimer.stop();
    m_readyDeadline.stop();
    if (m_poll)
        m_poll->abort();
    m_killTimer.stop();
    const bool wasConnected = m_state == State::Connected || m_state == State::Unauthorized;
    const qint64 readyForMs = wasConnected && m_readySince.isValid() ? m_readySince.elapsed() : 0;
    m_healthBase.clear();
    process->disconnect(this);
    process->deleteLater();

    if (m_stopping) {
        qCInfo(lcTunnel).noquote() << "tunnel-client stopped";
        setState(State::Stopped, QString());
        emit stopped();
        return;
    }
    if (!m_restartReason.isEmpty())
        m_lastError = m_restartReason;
    else
        m_lastError = m_lastErrorLine.isEmpty() ? why : QStringLiteral("%1: %2").arg(why, m_lastErrorLine);
    const qint64 delay = m_backoff.nextDelayMs(readyForMs);
    const int attempt = m_backoff.consecutiveFailures();
    qCWarning(lcTunnel).noquote() << QStringLiteral("%1; restarting in %2 ms (consecutive failure %3)")
                                         .arg(m_lastError).arg(delay).arg(attempt);
    m_restartTimer.start(static_cast<int>(delay));
    setState(State::Failed, QStringLiteral("%1; restarting in %2 s").arg(m_lastError).arg(delay / 1000.0, 0, 'f', 1));
}

bool TunnelSupervisor::readHealthUrlFile()
{
    QFile file(healthUrlFilePath());
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QString text = QString::fromUtf8(file.read(256)).trimmed();
    // Only a loopback http URL: the file is ours, but nothing read from disk is trusted blindly.
    static const QRegularExpression pattern(QStringLiteral("^http://(127\\.0\\.0\\.1|localhost|\\[::1\\]):(\\d{1,5})$"));
    const QRegularExpressionMatch m = pattern.match(text);
    if (!m.hasMatch() || m.captured(2).toUInt() == 0 || m.captured(2).toUInt() > 65535)
        return false;
    m_healthBase = text;
    qCInfo(lcTunnel).noquote() << "tunnel-client health listener" << m_healthBase;
    emit statusChanged();
    return true;
}

void TunnelSupervisor::pollHealth()
{
    if (!m_process || m_process->state() != QProcess::Running || m_poll || !m_restartReason.isEmpty())
        return;
    if (m_healthBase.isEmpty() && !readHealthUrlFile())
        return;
    getHealth(QStringLiteral("/readyz"), [this](QNetworkReply *reply) {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        onReadyz(status, masked(QString::fromUtf8(reply->read(kMaxLineChars)).simplified()),
                 status ? QString() : reply->errorString());
    });
}

void TunnelSupervisor::getHealth(const QString &path, std::function<void(QNetworkReply *)> then)
{
    QNetworkRequest request(QUrl(m_healthBase + path));
    request.setTransferTimeout(kHttpTimeoutMs);
    QNetworkReply *reply = m_nam.get(request);
    m_poll = reply;
    const quint64 generation = m_generation;
    QProcess *process = m_process;
    connect(reply, &QNetworkReply::finished, this, [this, reply, generation, process, then] {
        reply->deleteLater();
        if (m_poll == reply)
            m_poll = nullptr;
        if (generation != m_generation || process != m_process || m_stopping)
            return;
        then(reply);
    });
}

void TunnelSupervisor::onReadyz(int status, const QString &body, const QString &error)
{
    if (status != 200) {
        m_readyzOk = false;
        m_readinessDetail = status > 0 ? QStringLiteral("/readyz: HTTP %1%2").arg(status).arg(body.isEmpty() ? QString() : QStringLiteral(" ") + body)
                                       : QStringLiteral("/readyz: %1").arg(error);
        if (status == 503 && isFinalReadinessFailure(body))
            return restartClient(QStringLiteral("tunnel-client cannot become ready: %1").arg(body));
        return evaluate();
    }
    if (!m_readyzOk) {
        m_readyzOk = true;
        m_readinessDetail.clear();
        m_readyDeadline.stop();
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel-client ready (%1)").arg(body);
    }
    // Readiness says nothing about the control plane: the poll gauge does.
    getHealth(QStringLiteral("/metrics"), [this](QNetworkReply *reply) {
        onMetrics(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200 ? reply->read(1 << 20) : QByteArray());
    });
}

void TunnelSupervisor::onMetrics(const QByteArray &body)
{
    const std::optional<double> gauge = prometheusSample(body, QByteArrayLiteral("commands_poll_last_successful_timestamp_seconds"));
    if (gauge && *gauge > m_lastPollSuccessS)
        m_lastPollSuccessS = *gauge;
    if (m_detailsRoute == DetailsRoute::Absent)
        return evaluate();
    readDetails();
}

// The components' own view, where the client has the route (reference/tunnel-client.md, "Newer than
// v0.0.14"); a 404 means an older client: /readyz and /metrics stay the only evidence.
void TunnelSupervisor::readDetails()
{
    getHealth(QStringLiteral("/health?details=true"), [this](QNetworkReply *reply) {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 404 && m_detailsRoute == DetailsRoute::Unknown) {
            m_detailsRoute = DetailsRoute::Absent;
            qCInfo(lcTunnel).noquote() << "tunnel-client has no /health details (v0.0.14 or older): /readyz and /metrics it is";
        } else if (status == 200) {
            if (m_detailsRoute != DetailsRoute::Served)
                qCInfo(lcTunnel).noquote() << "tunnel-client reports its components (/health?details=true)";
            m_detailsRoute = DetailsRoute::Served;
            m_details = parseTunnelHealthDetails(reply->read(64 * 1024 + 1));
        }
        evaluate();
    });
}

void TunnelSupervisor::evaluate()
{
    if (!m_process || m_stopping || !m_restartReason.isEmpty())
        return;
    const double nowS = nowMs() / 1000.0;
    const bool pollSucceeded = m_lastPollSuccessS > 0;
    // The gauge has whole seconds: a failure in the same second as the last success counts as newer
    // (a success after a failure also logs "poller recovered", which clears the failure).
    const bool failureIsLatest = m_pollFailureAtMs > 0 && m_pollFailureAtMs / 1000.0 >= std::floor(m_lastPollSuccessS);
    State next;
    QString detail;
    if (failureIsLatest && m_pollFailure.isAuthFailure()) {
        next = State::Unauthorized;
        detail = unauthorizedAdvice(m_pollFailure.statusCode);
        m_lastError = m_pollFailure.text;
    } else if (m_readyzOk && pollSucceeded && nowS - m_lastPollSuccessS <= kPollFreshSeconds && !failureIsLatest
               && m_details && !tunnelDetailsProblem(*m_details).isEmpty()) {
        next = State::Failed;
        detail = tunnelDetailsProblem(*m_details);
        m_lastError = detail;
    } else if (m_readyzOk && pollSucceeded && nowS - m_lastPollSuccessS <= kPollFreshSeconds && !failureIsLatest) {
        next = State::Connected;
        m_lastError.clear();
    } else if (failureIsLatest) {
        next = State::Failed;
        detail = QStringLiteral("polls of the tunnel service fail (tunnel-client retries by itself): %1").arg(m_pollFailure.text);
        m_lastError = m_pollFailure.text;
    } else if (pollSucceeded && nowS - m_lastPollSuccessS > kPollFreshSeconds) {
        next = State::Failed;
        detail = QStringLiteral("no successful poll of the tunnel service for %1 s").arg(qint64(nowS - m_lastPollSuccessS));
    } else {
        next = State::Starting;
        detail = !m_readyzOk ? QStringLiteral("waiting for tunnel-client to become ready%1")
                                   .arg(m_readinessDetail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m_readinessDetail))
                             : QStringLiteral("tunnel-client is ready; waiting for the first successful poll of the tunnel service");
    }
    if ((next == State::Connected || next == State::Unauthorized) && !m_readySince.isValid())
        m_readySince.start();
    m_pollTimer.setInterval(next == State::Connected ? kPollSteadyMs : kPollStartingMs * 2);
    setState(next, detail);
}

void TunnelSupervisor::stop()
{
    m_stopping = true;
    ++m_generation;
    m_restartTimer.stop();
    m_pollTimer.stop();
    m_readyDeadline.stop();
    if (m_poll)
        m_poll->abort();
    if (!m_process) {
        if (m_state != State::Failed)
            setState(State::Stopped, QString());   // a Failed tunnel keeps its reason in lastError()
        else
            setState(State::Stopped, m_detail);
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
