#include "TunnelRuntime.h"

#include "HealthServer.h"
#include "Log.h"
#include "McpProbe.h"
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

TunnelRuntime::TunnelRuntime(const RunConfig &config, const Faults &faults, const EventLog &events,
                             SignalWatcher *signals_, QObject *parent)
    : QObject(parent), m_config(config), m_faults(faults), m_events(events)
{
    m_health = new HealthServer(faults.textHealth, this);
    m_probe = new McpProbe(config.mcpServerUrl, config.probeHeaders, this);
    connect(m_probe, &McpProbe::succeeded, this, &TunnelRuntime::onProbeSucceeded);
    connect(m_probe, &McpProbe::failed, this, &TunnelRuntime::onProbeFailed);
    connect(signals_, &SignalWatcher::signalReceived, this, &TunnelRuntime::onSignal);

    m_retryTimer.setSingleShot(true);
    m_retryTimer.setInterval(faults.retryMs);
    connect(&m_retryTimer, &QTimer::timeout, this, [this] {
        ++m_attempts;
        logDebug(QStringLiteral("initialize attempt %1 against %2").arg(m_attempts).arg(m_config.mcpServerUrl.toString()));
        m_probe->start();
    });
    m_exitTimer.setSingleShot(true);
    m_exitTimer.setTimerType(Qt::PreciseTimer);
    connect(&m_exitTimer, &QTimer::timeout, this, [this] {
        logInfo(QStringLiteral("exiting with code 3 (FAKE_TUNNEL_EXIT_AFTER_S)"));
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
        logAlways(QStringLiteral("health server: cannot listen on %1").arg(m_config.healthListenAddr));
        m_events.write(QStringLiteral("exit"), {{QStringLiteral("code"), 1},
                                                {QStringLiteral("signal"), QJsonValue::Null},
                                                {QStringLiteral("reason"), QStringLiteral("health listen failed")}});
        return false;
    }
    QString host = m_config.healthHost.toString();
    if (m_config.healthHost == QHostAddress(QHostAddress::Any) || m_config.healthHost == QHostAddress(QHostAddress::AnyIPv4))
        host = QStringLiteral("127.0.0.1");
    else if (m_config.healthHost.protocol() == QAbstractSocket::IPv6Protocol)
        host = QLatin1Char('[') + host + QLatin1Char(']');
    const QString url = QStringLiteral("http://%1:%2").arg(host).arg(port);
    logInfo(QStringLiteral("health server listening on %1").arg(url));
    m_events.write(QStringLiteral("listening"), {{QStringLiteral("url"), url}, {QStringLiteral("port"), port}});
    if (!m_config.healthUrlFile.isEmpty() && !writeUrlFile(url))
        return false;

    if (m_faults.exitAfterMs >= 0) {
        m_exitTimer.setInterval(static_cast<int>(qMin<qint64>(m_faults.exitAfterMs, INT_MAX)));
        m_exitTimer.start();
    }
    m_retryTimer.start(0);
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

void TunnelRuntime::onProbeSucceeded(const QString &protocolVersion, const QByteArray &sessionId)
{
    Q_UNUSED(sessionId)
    logInfo(QStringLiteral("initialize ok (protocol %1)").arg(protocolVersion));
    if (m_faults.neverReady) {
        logInfo(QStringLiteral("staying not ready (FAKE_TUNNEL_NEVER_READY=1)"));
        setReady(false, QStringLiteral("not ready: FAKE_TUNNEL_NEVER_READY=1"));
        return;
    }
    setReady(true, QString());
    logInfo(QStringLiteral("ready"));
}

void TunnelRuntime::onProbeFailed(const QString &reason)
{
    logWarn(QStringLiteral("initialize failed: %1 (retrying in %2 ms)").arg(reason).arg(m_faults.retryMs));
    setReady(false, QStringLiteral("mcp probe failed: ") + reason);
    m_retryTimer.start(m_faults.retryMs);
}

void TunnelRuntime::setReady(bool ready, const QString &reason)
{
    const bool changed = ready != m_health->isReady();
    m_health->setReadiness(ready, reason);
    if (changed)
        m_events.write(ready ? QStringLiteral("ready") : QStringLiteral("not_ready"),
                       {{QStringLiteral("ready"), ready}});
}

void TunnelRuntime::onSignal(int signo)
{
    const QString name = QLatin1String(SignalWatcher::signalName(signo));
    if (signo == SIGTERM && m_faults.ignoreSigterm) {
        logInfo(QStringLiteral("ignoring SIGTERM (FAKE_TUNNEL_IGNORE_SIGTERM=1)"));
        m_events.write(QStringLiteral("signal_ignored"), {{QStringLiteral("signal"), name}});
        return;
    }
    logInfo(QStringLiteral("received %1, stopping").arg(name));
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
    QJsonObject fields{{QStringLiteral("code"), code},
                       {QStringLiteral("signal"), signalName.isEmpty() ? QJsonValue() : QJsonValue(signalName)}};
    if (!reason.isEmpty())
        fields.insert(QStringLiteral("reason"), reason);
    m_events.write(QStringLiteral("exit"), fields);
    QCoreApplication::exit(code);
}

} // namespace faketunnel
