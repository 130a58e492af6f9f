// TunnelSupervisor as it is shown: state names, the advice for a refused key, and the status JSON of
// `chat2sbx status`, /health and the tray.
#include "tunnel/TunnelSupervisor.h"

#include "core/Clock.h"

namespace chat2sbx {

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
    return m_client.exists() && !m_health.base().isEmpty() ? m_health.base() + QStringLiteral("/healthz") : QString();
}

qint64 TunnelSupervisor::childPid() const
{
    return m_client.pid();
}

qint64 TunnelSupervisor::nextRestartInMs() const
{
    return m_restartTimer.isActive() ? m_restartTimer.remainingTime() : -1;
}

qint64 TunnelSupervisor::lastPollAgeSeconds() const
{
    const double last = m_health.evidence().lastPollSuccessS;
    return last > 0 ? qMax<qint64>(0, Clock::system().nowMs() / 1000 - static_cast<qint64>(last)) : -1;
}

QJsonObject TunnelSupervisor::toJson() const
{
    auto orNull = [](const QString &s) { return s.isEmpty() ? QJsonValue() : QJsonValue(s); };
    QJsonObject o{
        {QStringLiteral("state"), stateName(m_state)},
        {QStringLiteral("detail"), orNull(m_detail)},
        {QStringLiteral("lastError"), orNull(m_lastError)},
        {QStringLiteral("readiness"), orNull(m_health.evidence().readinessDetail)},
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
    if (const std::optional<TunnelHealthDetails> &details = m_health.evidence().details)
        o.insert(QStringLiteral("components"),
                 QJsonObject{{QStringLiteral("controlPlane"), orNull(details->controlPlane.status)},
                             {QStringLiteral("responseDelivery"), orNull(details->responseDelivery.status)}});
    return o;
}

} // namespace chat2sbx
