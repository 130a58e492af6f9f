#include "mcp/ModernEnvelope.h"

#include "mcp/ProtocolVersions.h"

namespace chat2sbx::modernenvelope {

namespace {

const QString kVersionKey = QStringLiteral("io.modelcontextprotocol/protocolVersion");
const QString kCapabilitiesKey = QStringLiteral("io.modelcontextprotocol/clientCapabilities");
const QString kClientInfoKey = QStringLiteral("io.modelcontextprotocol/clientInfo");

QJsonObject metaOf(const QJsonObject &params)
{
    return params.value(QStringLiteral("_meta")).toObject();
}

} // namespace

std::optional<QString> metaVersion(const QJsonObject &params)
{
    const QJsonValue v = metaOf(params).value(kVersionKey);
    return v.isString() ? std::optional<QString>(v.toString()) : std::nullopt;
}

bool isModernRequest(const QJsonObject &params, const std::optional<QString> &headerVersion)
{
    const QJsonObject meta = metaOf(params);
    if (const auto version = metaVersion(params))
        return !protocolversions::isLegacy(*version);
    if (meta.contains(kCapabilitiesKey) || meta.contains(kVersionKey))
        return true;
    return headerVersion && !protocolversions::isLegacy(headerVersion->trimmed());
}

std::optional<McpClient> parse(const QJsonObject &params, QString &problem)
{
    const QJsonValue metaValue = params.value(QStringLiteral("_meta"));
    if (!metaValue.isObject()) {
        problem = QStringLiteral("params._meta is required on every request of protocol version %1 (with %2 and %3)")
                      .arg(protocolversions::modern(), kVersionKey, kCapabilitiesKey);
        return std::nullopt;
    }
    const QJsonObject meta = metaValue.toObject();
    if (!meta.value(kVersionKey).isString()) {
        problem = QStringLiteral("params._meta[\"%1\"] must be a string").arg(kVersionKey);
        return std::nullopt;
    }
    if (!meta.value(kCapabilitiesKey).isObject()) {
        problem = QStringLiteral("params._meta[\"%1\"] must be an object").arg(kCapabilitiesKey);
        return std::nullopt;
    }
    const QJsonValue info = meta.value(kClientInfoKey);
    if (!info.isUndefined() && !info.isObject()) {
        problem = QStringLiteral("params._meta[\"%1\"] must be an object when present").arg(kClientInfoKey);
        return std::nullopt;
    }
    McpClient client;
    client.name = info.toObject().value(QStringLiteral("name")).toString().left(100);
    client.version = info.toObject().value(QStringLiteral("version")).toString().left(50);
    client.protocolVersion = meta.value(kVersionKey).toString();
    client.capabilities = meta.value(kCapabilitiesKey).toObject();
    client.modern = true;
    return client;
}

} // namespace chat2sbx::modernenvelope
