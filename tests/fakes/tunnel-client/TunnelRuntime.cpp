#include "TunnelRuntime.h"

#include "ControlPlanePoller.h"
#include "HealthServer.h"
#include "Log.h"
#include "McpProbe.h"
#include "OAuthDiscovery.h"
#include "SignalWatcher.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <QSaveFile>

#include <climits>
#include <csignal>

namespace faketunnel {
namespace {
constexpr qint64 kProbeBackoffMaxMs = 1000;
}

TunnelRuntime::TunnelRuntime(const RunConfig &config, const Faults &faults, const EventLog &events,
                             SignalWatcher *signals_, QObject *parent)
    : QObject(parent), m_config(config), m_faults(faults), m_events(events)
{
    m_poller = new ControlPlanePoller(faults.pollMs, faults.pollStatus, this);
    m_health = new HealthServer([this] {
        const QByteArray ready = m_health->isReady() ? "1" : "0";
        return QByteArrayLiteral("# HELP readiness Reports 1 when the tunnel client reports readiness\n# TYPE readiness gauge\n"
                                 "readiness{otel_scope_name=\"health\",otel_scope_schema_url=\"\",otel_scope_version=\"\"} ")
               + ready + '\n' + m_poller->metrics();
    }, this);
    if (faults.healthDetails)
        m_health->serveDetails([this] {
            QJsonObject delivery{{QStringLiteral("status"), QStringLiteral("ok")}, {QStringLiteral("state"), QStringLiteral("idle")}};
            if (!m_faults.deliveryDegraded.isEmpty())
                delivery = {{QStringLiteral("status"), QStringLiteral("degraded")}, {QStringLiteral("state"), QStringLiteral("retrying")},
                            {QStringLiteral("reason_code"), m_faults.deliveryDegraded}};
            return QJsonObject{{QStringLiteral("control-plane"), m_poller->component()}, {QStringLiteral("response-delivery"), delivery},
                               {QStringLiteral("queue"), QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                                                     {QStringLiteral("state"), QStringLiteral("flowing")}}}};
        });
    m_probe = new McpProbe(config.mcpServerUrl, config.probeHeaders, this);
    m_discovery = new OAuthDiscovery(config.mcpServerUrl, config.probeHeaders, this);
    connect(m_probe, &McpProbe::succeeded, this, [this](const QString &protocolVersion, const QByteArray &) {
        logInfo(QStringLiteral("mcp session initialized"), {{QStringLiteral("protocol_version"), protocolVersion}});
        settleProbe(Step::Ok, QString());
    });
    connect(m_probe, &McpProbe::failed, this, &TunnelRuntime::onProbeFailed);
    connect(m_probe, &McpProbe::timedOut, this, [this] {
        const QString why = QStringLiteral("mcp probe timed out after 2s: context deadline exceeded");
        logError(QStringLiteral("mcp probe timed out"), {{QStringLiteral("timeout"), QStringLiteral("2s")}, {QStringLiteral("error"), why}});
        settleProbe(Step::Ok, QStringLiteral("ready (mcp startup probe timed out: %1)").arg(why));   // as the real client: ready
    });
    connect(m_discovery, &OAuthDiscovery::finished, this, [this](bool ok, bool optional, const QString &detail) {
        m_discoveryStep = ok ? Step::Ok : Step::Failed;
        m_discoveryDetail = detail;
        if (ok)
            logInfo(optional ? QStringLiteral("oauth discovery: protected resource metadata not advertised")
                             : QStringLiteral("oauth discovery complete"), {{QStringLiteral("detail"), detail}});
        else
            logError(QStringLiteral("oauth discovery failed"), {{QStringLiteral("error"), detail}});
        updateReadiness();
    });
    connect(signals_, &SignalWatcher::signalReceived, this, &TunnelRuntime::onSignal);

    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &TunnelRuntime::attemptProbe);
    m_exitTimer.setSingleShot(true);
    m_exitTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_exitTimer, &QTimer::timeout, this, [this] {
        logError(QStringLiteral("exiting with code 3 (FAKE_TUNNEL_EXIT_AFTER_S)"));
        stop(3, QString(), QStringLiteral("FAKE_TUNNEL_EXIT_AFTER_S"));
    });
}

TunnelRuntime::~TunnelRuntime()
{
    if (m_urlFileWritten)
        QFile::remove(m_config.healthUrlFile);
}

bool TunnelRuntime::start()
{
    const quint16 port = m_health->listen(m_config.healthHost, m_config.healthPort);
    if (port == 0) {
        logAlways(QStringLiteral("listen tcp %1: bind: address already in use").arg(m_config.healthListenAddr));
        m_events.write(QStringLiteral("exit"), {{QStringLiteral("code"), 1},
                                                {QStringLiteral("signal"), QJsonValue::Null},
                                                {QStringLiteral("reason"), QStringLiteral("health listen failed")}});
        return false;
    }
    QString host = m_config.healthHost.toString();
    if (m_config.healthHost == QHostAddress(QHostAddress::Any) || m_config.healthHost == QHostAddress(QHostAddress::AnyIPv4))
        host = QStringLiteral("localhost");
    else if (m_config.healthHost.protocol() == QAbstractSocket::IPv6Protocol)
        host = QLatin1Char('[') + host + QLatin1Char(']');
    const QString url = QStringLiteral("http://%1:%2").arg(host).arg(port);
    if (!m_config.healthUrlFile.isEmpty()) {
        if (!writeUrlFile(url))
            return false;
        logInfo(QStringLiteral("\U0001FA7A HEALTH URL: %1 (written to %2)").arg(url, m_config.healthUrlFile),
                {{QStringLiteral("url"), url}, {QStringLiteral("path"), m_config.healthUrlFile}});
    }
    logInfo(QStringLiteral("health server listening"), {{QStringLiteral("addr"), QStringLiteral("%1:%2").arg(m_config.healthHost.toString()).arg(port)}});
    m_events.write(QStringLiteral("listening"), {{QStringLiteral("url"), url}, {QStringLiteral("port"), port}});
    updateReadiness();

    if (m_faults.exitAfterMs >= 0) {
        m_exitTimer.setInterval(static_cast<int>(qMin<qint64>(m_faults.exitAfterMs, INT_MAX)));
        m_exitTimer.start();
    }
    m_discovery->start();
    m_waitClock.start();
    attemptProbe();
    // "Maximum opt-in startup wait for the main MCP HTTP listener before first poll."
    if (m_config.startupWaitMs <= 0)
        m_poller->start();
    return true;
}

bool TunnelRuntime::writeUrlFile(const QString &url)
{
    const QString path = m_config.healthUrlFile;
    QDir().mkpath(QFileInfo(path).absolutePath());
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(url.toUtf8()) < 0
        || !file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner) || !file.commit()) {
        logAlways(QStringLiteral("write health URL file %1: %2").arg(path, file.errorString()));
        return false;
    }
    m_urlFileWritten = true;
    return true;
}

// FAKE_TUNNEL_PROBE_FAILURES_FILE: consume one injected failure, shared by every fake process.
bool TunnelRuntime::injectProbeFailure()
{
    if (m_faults.probeFailuresFile.isEmpty())
        return false;
    QFile file(m_faults.probeFailuresFile);
    if (!file.open(QIODevice::ReadWrite))
        return false;
    const int left = file.readAll().trimmed().toInt();
    if (left <= 0)
        return false;
    file.resize(0);
    file.seek(0);
    file.write(QByteArray::number(left - 1) + '\n');
    file.close();
    const QString kind = m_faults.probeFailure;
    QTimer::singleShot(kind == QLatin1String("timeout") ? 2000 : 10, this, [this, kind] {
        if (kind == QLatin1String("timeout"))
            return emit m_probe->timedOut();
        if (kind == QLatin1String("http"))
            return onProbeFailed(QStringLiteral("POST initialize: HTTP 503 Service Unavailable (injected)"), false);
        onProbeFailed(QStringLiteral("POST initialize: dial tcp %1: connect: connection refused (injected)")
                          .arg(m_config.mcpServerUrl.authority()), true);
    });
    return true;
}

void TunnelRuntime::attemptProbe()
{
    if (m_stopping)
        return;
    ++m_attempts;
    m_events.write(QStringLiteral("probe"), {{QStringLiteral("attempt"), m_attempts}});
    if (!injectProbeFailure())
        m_probe->start();
}

void TunnelRuntime::onProbeFailed(const QString &reason, bool retryable)
{
    if (!retryable || m_config.startupWaitMs <= 0) {
        logError(QStringLiteral("failed to connect to mcp"), {{QStringLiteral("error"), reason}});
        return settleProbe(Step::Failed, QStringLiteral("mcp probe failed: ") + reason);
    }
    m_lastRetryable = reason;
    const qint64 left = m_config.startupWaitMs - m_waitClock.elapsed();
    if (left <= 0) {
        const QString why = QStringLiteral("mcp startup wait timed out after %1ms: %2").arg(m_config.startupWaitMs).arg(reason);
        logError(QStringLiteral("MCP startup wait timed out"), {{QStringLiteral("timeout"), QStringLiteral("%1ms").arg(m_config.startupWaitMs)},
                                                                {QStringLiteral("error"), why}});
        return settleProbe(Step::Failed, QStringLiteral("mcp startup wait failed: ") + why);
    }
    logWarn(QStringLiteral("retrying MCP startup probe"), {{QStringLiteral("attempt"), m_attempts},
                                                           {QStringLiteral("backoff"), QStringLiteral("%1ms").arg(m_backoffMs)},
                                                           {QStringLiteral("error"), reason}});
    m_retryTimer.start(static_cast<int>(qMin(m_backoffMs, left)));
    m_backoffMs = qMin(kProbeBackoffMaxMs, m_backoffMs * 2);
}

void TunnelRuntime::settleProbe(Step step, const QString &detail)
{
    m_probeStep = step;
    m_probeDetail = detail;
    updateReadiness();
    if (m_config.startupWaitMs > 0 && !m_stopping)
        m_poller->start();
}

void TunnelRuntime::updateReadiness()
{
    bool ready = false;
    QString body;
    if (m_discoveryStep == Step::Pending)
        body = QStringLiteral("oauth discovery pending");
    else if (m_discoveryStep == Step::Failed)
        body = QStringLiteral("oauth discovery failed: ") + m_discoveryDetail;
    else if (m_probeStep == Step::Pending)
        body = QStringLiteral("mcp startup probe pending");
    else if (m_probeStep == Step::Failed)
        body = m_probeDetail;
    else {
        ready = true;
        body = m_probeDetail.isEmpty() ? QStringLiteral("ready") : m_probeDetail;
    }
    const bool changed = ready != m_health->isReady();
    m_health->setReadiness(ready, body);
    if (changed || !ready)
        m_events.write(ready ? QStringLiteral("ready") : QStringLiteral("not_ready"),
                       {{QStringLiteral("ready"), ready}, {QStringLiteral("reason"), body}});
}

void TunnelRuntime::onSignal(int signo)
{
    const QString name = QLatin1String(SignalWatcher::signalName(signo));
    if (signo == SIGTERM && m_faults.ignoreSigterm) {
        logInfo(QStringLiteral("ignoring SIGTERM (FAKE_TUNNEL_IGNORE_SIGTERM=1)"));
        m_events.write(QStringLiteral("signal_ignored"), {{QStringLiteral("signal"), name}});
        return;
    }
    if (m_stopping)
        return;
    logInfo(QStringLiteral("shutting down"), {{QStringLiteral("signal"), name}});
    stop(0, name, QString());
}

void TunnelRuntime::stop(int code, const QString &signalName, const QString &reason)
{
    if (m_stopping)
        return;
    m_stopping = true;
    m_retryTimer.stop();
    m_exitTimer.stop();
    m_probe->abort();
    m_discovery->abort();
    m_poller->stop();
    QJsonObject fields{{QStringLiteral("code"), code},
                       {QStringLiteral("signal"), signalName.isEmpty() ? QJsonValue() : QJsonValue(signalName)}};
    if (!reason.isEmpty())
        fields.insert(QStringLiteral("reason"), reason);
    // A graceful stop drains in-flight work; FAKE_TUNNEL_STOP_DELAY_MS models a slow one.
    const int delay = signalName.isEmpty() ? 0 : m_faults.stopDelayMs;
    if (delay > 0)
        m_events.write(QStringLiteral("stopping"), {{QStringLiteral("delay_ms"), delay}});
    // Precise: a static single shot of 2 s or more is coarse and may fire 5% early, before the drain
    // the test measures is over.
    QTimer::singleShot(delay, Qt::PreciseTimer, this, [this, code, fields] {
        if (m_urlFileWritten && QFile::remove(m_config.healthUrlFile))
            m_urlFileWritten = false;
        m_events.write(QStringLiteral("exit"), fields);
        QCoreApplication::exit(code);
    });
}

} // namespace faketunnel
