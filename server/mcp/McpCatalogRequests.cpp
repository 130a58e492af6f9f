// McpDispatcher's answers that need no session and no tool run, the same in both eras but for what
// the 2026-07-28 revision adds to each result (resultType, serverInfo, cache hints) and its error
// code for an unknown resource.
#include "mcp/McpDispatcher.h"

#include "core/JsonRpc.h"
#include "mcp/McpPrompts.h"
#include "mcp/McpResources.h"
#include "mcp/ServerDescription.h"
#include "mcp/ToolRegistry.h"

namespace chat2sbx {

namespace {

bool isCatalogMethod(const QString &method)
{
    static const QStringList methods = {QStringLiteral("tools/list"), QStringLiteral("resources/list"),
                                        QStringLiteral("resources/templates/list"), QStringLiteral("resources/read"),
                                        QStringLiteral("prompts/list"), QStringLiteral("prompts/get")};
    return methods.contains(method);
}

// A list or read result in the client's era.
McpAnswer catalogResult(const QJsonValue &id, QJsonObject result, bool modern)
{
    if (modern) {
        serverdescription::addCacheHints(result);
        serverdescription::stampModern(result);
    }
    return McpAnswer::result(id, result);
}

} // namespace

std::optional<McpAnswer> McpDispatcher::answerCatalogRequest(const QJsonValue &id, const QString &method,
                                                             const QJsonObject &params, const McpClient &client)
{
    if (!isCatalogMethod(method))
        return std::nullopt;
    const bool isList = method.endsWith(QLatin1String("/list"));
    if (isList && params.contains(QStringLiteral("cursor")))
        return McpAnswer::error(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: unknown cursor"));

    if (method == QLatin1String("tools/list")) {
        if (client.name == QLatin1String("openai-mcp"))
            emit toolListServedToChatGpt();
        const QByteArray &legacy = m_tools.listResultJson();
        if (!client.modern)
            return McpAnswer{200, jsonrpc::serializeResult(id, legacy), {}};
        if (m_modernToolListSource.constData() != legacy.constData() || m_modernToolList.isEmpty()) {
            m_modernToolListSource = legacy;
            m_modernToolList = serverdescription::stampModernCacheable(legacy);
        }
        return McpAnswer{200, jsonrpc::serializeResult(id, m_modernToolList), {}};
    }
    if (method == QLatin1String("resources/list"))
        return catalogResult(id, mcpresources::listResult(), client.modern);
    if (method == QLatin1String("resources/templates/list"))
        return catalogResult(id, mcpresources::templatesListResult(), client.modern);
    if (method == QLatin1String("prompts/list"))
        return catalogResult(id, mcpprompts::listResult(), client.modern);

    if (method == QLatin1String("resources/read")) {
        const QJsonValue uri = params.value(QStringLiteral("uri"));
        if (!uri.isString())
            return McpAnswer::error(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"uri\" must be a string"));
        QJsonObject result;
        if (!mcpresources::readResult(uri.toString(), result))
            return McpAnswer::error(200, id, client.modern ? jsonrpc::InvalidParams : jsonrpc::ResourceNotFound,
                                    QStringLiteral("Resource not found"),
                                    QJsonObject{{QStringLiteral("uri"), uri.toString().left(2048)}});
        return catalogResult(id, result, client.modern);
    }

    // prompts/get
    const QJsonValue name = params.value(QStringLiteral("name"));
    const QJsonValue arguments = params.value(QStringLiteral("arguments"));
    if (!name.isString())
        return McpAnswer::error(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"name\" must be a string"));
    if (!arguments.isUndefined() && !arguments.isObject())
        return McpAnswer::error(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"arguments\" must be an object"));
    QJsonObject result;
    QString error;
    if (!mcpprompts::getResult(name.toString(), arguments.toObject(), result, error))
        return McpAnswer::error(200, id, jsonrpc::InvalidParams, error);
    if (client.modern)
        serverdescription::stampModern(result);
    return McpAnswer::result(id, result);
}

} // namespace chat2sbx
