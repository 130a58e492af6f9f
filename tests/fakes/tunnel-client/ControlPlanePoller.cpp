#include "ControlPlanePoller.h"

#include "Log.h"

#include <QDateTime>
#include <QRegularExpression>
#include <QStringList>

namespace faketunnel {
namespace {

constexpr qint64 kBackoffMinMs = 200;
constexpr qint64 kBackoffMaxMs = 10000;
const char kScope[] = R"({otel_scope_name="controlplane",otel_scope_schema_url="",otel_scope_version=""})";

QString statusText(int status)
{
    switch (status) {
    case 401: return QStringLiteral("401 Unauthorized");
    case 403: return QStringLiteral("403 Forbidden");
    case 404: return QStringLiteral("404 Not Found");
    case 429: return QStringLiteral("429 Too Many Requests");
    case 500: return QStringLiteral("500 Internal Server Error");
    case 503: return QStringLiteral("503 Service Unavailable");
    default: return QString::number(status);
    }
}

// Go's strconv.FormatFloat(v, 'g', -1, 64) for the values used here.
QString goFloat(double v)
{
    return v == 0 ? QStringLiteral("0") : QString::number(v, 'e', 9).replace(QRegularExpression(QStringLiteral("\\.?0+e")), QStringLiteral("e"));
}

} // namespace

ControlPlanePoller::ControlPlanePoller(int pollMs, int failStatus, QObject *parent)
    : QObject(parent), m_pollMs(pollMs), m_failStatus(failStatus)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ControlPlanePoller::finishCycle);
}

void ControlPlanePoller::start()
{
    if (m_running)
        return;
    m_running = true;
    logInfo(QStringLiteral("poller started"));
    ++m_cycles;
    m_timer.start(m_failStatus ? 20 : m_pollMs);
}

void ControlPlanePoller::stop()
{
    if (!m_running)
        return;
    m_running = false;
    m_timer.stop();
    logInfo(QStringLiteral("poller stopped"), {{QStringLiteral("reason"), QStringLiteral("context canceled")}});
}

void ControlPlanePoller::finishCycle()
{
    if (m_failStatus) {
        ++m_errors;
        m_hadError = true;
        const qint64 delay = m_backoffMs;
        m_backoffMs = qMin(kBackoffMaxMs, m_backoffMs * 2);
        LogFields fields{
            {QStringLiteral("error"), QStringLiteral("poll tunnel commands: unexpected status %1").arg(statusText(m_failStatus))},
            {QStringLiteral("retry_in_ms"), delay},
            {QStringLiteral("tunnel_service_request_id"), QStringLiteral("req_fake%1").arg(m_cycles)},
            {QStringLiteral("status_code"), m_failStatus},
            {QStringLiteral("status"), statusText(m_failStatus)},
        };
        if (m_failStatus == 401)
            fields.append({QStringLiteral("error_code"), QStringLiteral("invalid_api_key")});
        logWarn(QStringLiteral("poll failed; backing off"), fields);
        ++m_cycles;
        m_timer.start(static_cast<int>(delay));
        return;
    }
    if (m_hadError) {
        logInfo(QStringLiteral("poller recovered; polling operational"));
        m_hadError = false;
    }
    m_backoffMs = kBackoffMinMs;
    m_lastSuccessSeconds = QDateTime::currentSecsSinceEpoch();
    ++m_cycles;
    m_timer.start(m_pollMs);
}

QJsonObject ControlPlanePoller::component() const
{
    if (m_hadError)
        return {{QStringLiteral("status"), QStringLiteral("degraded")}, {QStringLiteral("state"), QStringLiteral("backoff")},
                {QStringLiteral("reason_code"), QStringLiteral("http_%1").arg(m_failStatus)}};
    return {{QStringLiteral("status"), m_lastSuccessSeconds > 0 ? QStringLiteral("ok") : QStringLiteral("unknown")},
            {QStringLiteral("state"), QStringLiteral("polling")}};
}

QByteArray ControlPlanePoller::metrics() const
{
    QStringList lines{
        QStringLiteral("# HELP commands_poll_cycles_total Total number of poll cycles initiated by the poller."),
        QStringLiteral("# TYPE commands_poll_cycles_total counter"),
        QStringLiteral("commands_poll_cycles_total%1 %2").arg(QLatin1String(kScope)).arg(m_cycles),
        QStringLiteral("# HELP commands_poll_errors_total Total number of poll errors."),
        QStringLiteral("# TYPE commands_poll_errors_total counter"),
        QStringLiteral("commands_poll_errors_total{error_kind=\"other\",otel_scope_name=\"controlplane\",otel_scope_schema_url=\"\",otel_scope_version=\"\"} %1").arg(m_errors),
        QStringLiteral("# HELP commands_poll_last_successful_timestamp_seconds Unix timestamp in seconds of the last successful poll."),
        QStringLiteral("# TYPE commands_poll_last_successful_timestamp_seconds gauge"),
        QStringLiteral("commands_poll_last_successful_timestamp_seconds%1 %2").arg(QLatin1String(kScope), goFloat(static_cast<double>(m_lastSuccessSeconds))),
    };
    return lines.join(QLatin1Char('\n')).toUtf8() + '\n';
}

} // namespace faketunnel
