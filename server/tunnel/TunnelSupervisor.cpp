#include "tunnel/TunnelSupervisor.h"

#include "core/Clock.h"
#include "tunnel/TunnelClientLaunch.h"

#include <QDir>
#include <QLoggingCategory>
#include <QProcessEnvironment>

#include <cmath>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcTunnel, "chat2sbx.tunnel")

namespace {

constexpr int kPollStartingMs = 250;
constexpr int kPollSteadyMs = 2000;
constexpr qint64 kBackoffMaxMs = 60000;
constexpr qint64 kStableMs = 60000;
// The client long-polls for up to 30 s (plus a guardrail); a successful poll older than this means the
// tunnel service is no longer answering.
constexpr qint64 kPollFreshSeconds = 90;

qint64 nowMs() { return Clock::system().nowMs(); }

} // namespace

TunnelSupervisor::TunnelSupervisor(const Config &config, QObject *parent)
    : QObject(parent), m_config(config),
      m_backoff(config.tunnelBackoffMs, qMax<qint64>(kBackoffMaxMs, config.tunnelBackoffMs), kStableMs)
{
    connect(&m_pollTimer, &QTimer::timeout, this, &TunnelSupervisor::pollHealth);
    m_readyDeadline.setSingleShot(true);
    connect(&m_readyDeadline, &QTimer::timeout, this, [this] {
        const QString readiness = m_health.evidence().readinessDetail;
        restartClient(QStringLiteral("tunnel-client was not ready within %1 s%2")
                          .arg(m_config.tunnelReadyTimeoutMs / 1000.0, 0, 'f', 1)
                          .arg(readiness.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(readiness)));
    });
    m_restartTimer.setSingleShot(true);
    m_restartTimer.setTimerType(Qt::PreciseTimer);   // a coarse timer may fire 5% early
    connect(&m_restartTimer, &QTimer::timeout, this, [this] {
        ++m_restarts;
        qCInfo(lcTunnel).noquote() << QStringLiteral("starting tunnel-client again (restart %1)").arg(m_restarts);
        launch();
    });
    connect(&m_client, &TunnelClientProcess::started, this, [this](qint64 pid) {
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel-client started (PID %1), MCP %2").arg(pid).arg(TunnelClientLaunch::mcpUrlFor(m_config.host, m_mcpPort));
        emit statusChanged();
    });
    connect(&m_client, &TunnelClientProcess::linesRead, this, &TunnelSupervisor::onLines);
    connect(&m_client, &TunnelClientProcess::finished, this, &TunnelSupervisor::onChildFinished);
    connect(&m_health, &TunnelHealthProbe::listening, this, &TunnelSupervisor::statusChanged);
    connect(&m_health, &TunnelHealthProbe::becameReady, this, [this](const QString &body) {
        m_readyDeadline.stop();
        qCInfo(lcTunnel).noquote() << QStringLiteral("tunnel-client ready (%1)").arg(body);
    });
    connect(&m_health, &TunnelHealthProbe::cannotBecomeReady, this, [this](const QString &body) {
        restartClient(QStringLiteral("tunnel-client cannot become ready: %1").arg(body));
    });
    connect(&m_health, &TunnelHealthProbe::updated, this, &TunnelSupervisor::evaluate);
}

TunnelSupervisor::~TunnelSupervisor() = default;

void TunnelSupervisor::setLocalToken(const QString &headerName, const QString &token)
{
    m_localTokenHeader = headerName;
    m_localToken = token;
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
    if (m_state == State::Starting || m_state == State::Connected || m_state == State::Unauthorized || m_client.exists()
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

QString TunnelSupervisor::healthUrlFilePath() const
{
    return m_config.stateDir + QStringLiteral("/tunnel-client-health.url");
}

void TunnelSupervisor::launch()
{
    const QString program = m_config.tunnelClient;
    if (const QString why = TunnelClientLaunch::whyNotRunnable(program); !why.isEmpty())
        return failPermanently(why);

    TunnelClientLaunch spec;
    spec.tunnelId = m_credentials.tunnelId;
    spec.mcpServerUrl = TunnelClientLaunch::mcpUrlFor(m_config.host, m_mcpPort);
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

    m_lastErrorLine.clear();
    m_restartReason.clear();
    m_pollFailure = TunnelClientLine();
    m_pollFailureAtMs = 0;
    m_readySince.invalidate();
    m_client.setSecrets({m_credentials.key, m_localToken});
    m_health.reset(spec.healthUrlFile, [this](const QString &text) { return m_client.mask(text); });
    setState(State::Starting, QStringLiteral("waiting for tunnel-client to become ready"));
    m_client.launch(program, spec.runArguments(), env);
    m_readyDeadline.start(m_config.tunnelReadyTimeoutMs);
    m_pollTimer.start(kPollStartingMs);
}

// Stops a client that cannot become ready (or stopped being useful) so that the back-off starts a new one.
void TunnelSupervisor::restartClient(const QString &why)
{
    if (!m_client.exists() || m_stopping || !m_restartReason.isEmpty())
        return;
    m_restartReason = why;
    m_lastError = why;
    m_readyDeadline.stop();
    m_pollTimer.stop();
    qCWarning(lcTunnel).noquote() << why << "- stopping it to start a new one";
    setState(State::Failed, why);
    m_client.terminate(m_config.tunnelStopGraceMs);
}

void TunnelSupervisor::onLines(const QList<TunnelClientLine> &lines)
{
    bool sawPollLine = false;
    for (const TunnelClientLine &line : lines) {
        switch (line.kind) {
        case TunnelClientLine::Kind::PollFailed:
            m_pollFailure = line;
            m_pollFailureAtMs = nowMs();
            m_lastErrorLine = line.text;
            sawPollLine = true;
            break;
        case TunnelClientLine::Kind::PollRecovered:
            m_pollFailure = TunnelClientLine();
            m_pollFailureAtMs = 0;
            sawPollLine = true;
            break;
        case TunnelClientLine::Kind::Error:
            m_lastErrorLine = line.text;
            break;
        case TunnelClientLine::Kind::Info:
            break;
        }
    }
    if (sawPollLine)
        evaluate();
}

void TunnelSupervisor::onChildFinished(const QString &why)
{
    m_pollTimer.stop();
    m_readyDeadline.stop();
    m_health.abort();
    const bool wasConnected = m_state == State::Connected || m_state == State::Unauthorized;
    const qint64 readyForMs = wasConnected && m_readySince.isValid() ? m_readySince.elapsed() : 0;

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

void TunnelSupervisor::pollHealth()
{
    if (!m_client.isRunning() || !m_restartReason.isEmpty())
        return;
    m_health.probe();
}

void TunnelSupervisor::evaluate()
{
    if (!m_client.exists() || m_stopping || !m_restartReason.isEmpty())
        return;
    const TunnelHealthProbe::Evidence &health = m_health.evidence();
    const double nowS = nowMs() / 1000.0;
    const bool pollSucceeded = health.lastPollSuccessS > 0;
    // The gauge has whole seconds: a failure in the same second as the last success counts as newer
    // (a success after a failure also logs "poller recovered", which clears the failure).
    const bool failureIsLatest = m_pollFailureAtMs > 0 && m_pollFailureAtMs / 1000.0 >= std::floor(health.lastPollSuccessS);
    State next;
    QString detail;
    if (failureIsLatest && m_pollFailure.isAuthFailure()) {
        next = State::Unauthorized;
        detail = unauthorizedAdvice(m_pollFailure.statusCode);
        m_lastError = m_pollFailure.text;
    } else if (health.readyzOk && pollSucceeded && nowS - health.lastPollSuccessS <= kPollFreshSeconds && !failureIsLatest
               && health.details && !tunnelDetailsProblem(*health.details).isEmpty()) {
        next = State::Failed;
        detail = tunnelDetailsProblem(*health.details);
        m_lastError = detail;
    } else if (health.readyzOk && pollSucceeded && nowS - health.lastPollSuccessS <= kPollFreshSeconds && !failureIsLatest) {
        next = State::Connected;
        m_lastError.clear();
    } else if (failureIsLatest) {
        next = State::Failed;
        detail = QStringLiteral("polls of the tunnel service fail (tunnel-client retries by itself): %1").arg(m_pollFailure.text);
        m_lastError = m_pollFailure.text;
    } else if (pollSucceeded && nowS - health.lastPollSuccessS > kPollFreshSeconds) {
        next = State::Failed;
        detail = QStringLiteral("no successful poll of the tunnel service for %1 s").arg(qint64(nowS - health.lastPollSuccessS));
    } else {
        next = State::Starting;
        detail = !health.readyzOk ? QStringLiteral("waiting for tunnel-client to become ready%1")
                                   .arg(health.readinessDetail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(health.readinessDetail))
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
    m_health.abort();
    if (!m_client.exists()) {
        if (m_state != State::Failed)
            setState(State::Stopped, QString());   // a Failed tunnel keeps its reason in lastError()
        else
            setState(State::Stopped, m_detail);
        QTimer::singleShot(0, this, [this] { emit stopped(); });
        return;
    }
    qCInfo(lcTunnel).noquote() << QStringLiteral("stopping tunnel-client (PID %1): SIGTERM, SIGKILL after %2 ms")
                                      .arg(m_client.pid()).arg(m_config.tunnelStopGraceMs);
    m_client.terminate(m_config.tunnelStopGraceMs);
}

} // namespace chat2sbx
