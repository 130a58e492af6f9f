#include "mcp/McpResources.h"

#include "mcp/ToolCard.h"

#include <QJsonArray>

namespace chat2sbx::mcpresources {

QJsonObject listResult()
{
    const QJsonObject card{{QStringLiteral("uri"), toolcard::uri()},
                           {QStringLiteral("name"), QStringLiteral("chat2sbx-tool-card")},
                           {QStringLiteral("title"), QStringLiteral("chat2sbx tool card")},
                           {QStringLiteral("description"), QStringLiteral("Draws the results of chat2sbx's tools")},
                           {QStringLiteral("mimeType"), toolcard::mimeType()},
                           {QStringLiteral("_meta"), toolcard::resourceMeta()}};
    return {{QStringLiteral("resources"), QJsonArray{card}}};
}

QJsonObject templatesListResult()
{
    return {{QStringLiteral("resourceTemplates"), QJsonArray()}};
}

bool readResult(const QString &uri, QJsonObject &result)
{
    if (uri != toolcard::uri())
        return false;
    result = {{QStringLiteral("contents"), QJsonArray{QJsonObject{{QStringLiteral("uri"), toolcard::uri()},
                                                                  {QStringLiteral("mimeType"), toolcard::mimeType()},
                                                                  {QStringLiteral("text"), toolcard::html()},
                                                                  {QStringLiteral("_meta"), toolcard::resourceMeta()}}}}};
    return true;
}

} // namespace chat2sbx::mcpresources
