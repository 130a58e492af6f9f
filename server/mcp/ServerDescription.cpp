#include "mcp/ServerDescription.h"

#include "mcp/McpInstructions.h"
#include "mcp/ProtocolVersions.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace chat2sbx::serverdescription {

namespace {

const QString kServerInfoKey = QStringLiteral("io.modelcontextprotocol/serverInfo");

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

QJsonObject serverInfo()
{
    return {{QStringLiteral("name"), QStringLiteral("chat2sbx")},
            {QStringLiteral("title"), QStringLiteral("chat2sbx")},
            {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)}};
}

QJsonObject capabilities(bool modern)
{
    QJsonObject caps{
        {QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
        {QStringLiteral("resources"), QJsonObject{{QStringLiteral("listChanged"), false}, {QStringLiteral("subscribe"), false}}},
        {QStringLiteral("prompts"), QJsonObject{{QStringLiteral("listChanged"), false}}},
        // The tool card is an MCP App (text/html;profile=mcp-app); clients without the extension get
        // the same tools and full text results.
        {QStringLiteral("extensions"), QJsonObject{{QStringLiteral("io.modelcontextprotocol/ui"), QJsonObject{}}}},
    };
    if (!modern)
        caps.insert(QStringLiteral("logging"), QJsonObject{});
    return caps;
}

QJsonObject initializeResult(const QString &negotiatedVersion)
{
    return {{QStringLiteral("protocolVersion"), negotiatedVersion},
            {QStringLiteral("capabilities"), capabilities(false)},
            {QStringLiteral("serverInfo"), serverInfo()},
            {QStringLiteral("instructions"), mcpInstructions()}};
}

QJsonObject discoverResult()
{
    QJsonObject result{{QStringLiteral("supportedVersions"), QJsonArray::fromStringList(protocolversions::all())},
                       {QStringLiteral("capabilities"), capabilities(true)},
                       {QStringLiteral("instructions"), mcpInstructions()}};
    addCacheHints(result);
    return result;
}

void addCacheHints(QJsonObject &result)
{
    result.insert(QStringLiteral("ttlMs"), kCacheTtlMs);
    result.insert(QStringLiteral("cacheScope"), QStringLiteral("private"));
}

void stampModern(QJsonObject &result)
{
    QJsonObject meta = result.value(QStringLiteral("_meta")).toObject();
    meta.insert(kServerInfoKey, serverInfo());
    result.insert(QStringLiteral("_meta"), meta);
    result.insert(QStringLiteral("resultType"), QStringLiteral("complete"));
}

QByteArray stampModernCacheable(const QByteArray &resultJson)
{
    QJsonObject extra;
    addCacheHints(extra);
    stampModern(extra);
    QByteArray members = compact(extra);   // {"_meta":...,"cacheScope":...,"resultType":...,"ttlMs":...}
    members.chop(1);                       // drop '}'
    if (resultJson.size() <= 2)            // "{}"
        return members + '}';
    return members + ',' + resultJson.mid(1);
}

const QByteArray &modernMetaMembers()
{
    static const QByteArray members = [] {
        QByteArray json = compact(QJsonObject{{kServerInfoKey, serverInfo()}});
        return json.mid(1, json.size() - 2);
    }();
    return members;
}

} // namespace chat2sbx::serverdescription
