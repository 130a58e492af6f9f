#include "tunnel/TunnelHealthDetails.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace chat2sbx {
namespace {

constexpr qsizetype kMaxSnapshotBytes = 64 * 1024;   // the client's own aggregate budget

// Identifiers only: the page bounds state to 32 and reason codes to 64 bytes of fixed ASCII.
QString identifier(const QJsonValue &v, int max)
{
    const QString s = v.toString();
    if (s.size() > max)
        return {};
    for (const QChar c : s)
        if (!(c.isLetterOrNumber() || c == QLatin1Char('_') || c == QLatin1Char('-') || c == QLatin1Char('.')) || c.unicode() > 0x7e)
            return {};
    return s;
}

TunnelComponentHealth component(const QJsonObject &components, const char *name)
{
    TunnelComponentHealth c;
    const QJsonValue v = components.value(QLatin1String(name));
    if (!v.isObject())
        return c;
    const QJsonObject o = v.toObject();
    c.present = true;
    c.status = identifier(o.value(QStringLiteral("status")), 16);
    c.state = identifier(o.value(QStringLiteral("state")), 32);
    c.reasonCode = identifier(o.value(QStringLiteral("reason_code")), 64);
    return c;
}

QString describe(const TunnelComponentHealth &c)
{
    const QString why = !c.reasonCode.isEmpty() ? c.reasonCode : c.state;
    return why.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(why);
}

} // namespace

std::optional<TunnelHealthDetails> parseTunnelHealthDetails(const QByteArray &json)
{
    if (json.size() > kMaxSnapshotBytes)
        return std::nullopt;
    const QJsonDocument doc = QJsonDocument::fromJson(json);
    if (!doc.isObject() || doc.object().value(QStringLiteral("schema_version")).toInt(-1) != 1)
        return std::nullopt;
    const QJsonObject o = doc.object();
    TunnelHealthDetails d;
    d.ready = o.value(QStringLiteral("ready")).toBool(false);
    const QJsonObject components = o.value(QStringLiteral("components")).toObject();
    d.controlPlane = component(components, "control-plane");
    d.responseDelivery = component(components, "response-delivery");
    return d;
}

QString tunnelDetailsProblem(const TunnelHealthDetails &details)
{
    if (details.controlPlane.degraded())
        return QStringLiteral("tunnel-client reports its polls of the tunnel service degraded%1: ChatGPT's calls may not reach "
                              "chat2sbx (tunnel-client retries by itself)").arg(describe(details.controlPlane));
    if (details.responseDelivery.degraded())
        return QStringLiteral("tunnel-client reports the delivery of answers to ChatGPT degraded%1: ChatGPT's calls reach "
                              "chat2sbx but their answers may not get back (tunnel-client retries by itself)")
            .arg(describe(details.responseDelivery));
    return {};
}

} // namespace chat2sbx
