#include "mcp/McpClient.h"

#include "mcp/ToolCard.h"

#include <QJsonArray>

namespace chat2sbx {

bool McpClient::declaresUi() const
{
    const QJsonObject ui = capabilities.value(QStringLiteral("extensions")).toObject()
                               .value(QStringLiteral("io.modelcontextprotocol/ui")).toObject();
    return ui.value(QStringLiteral("mimeTypes")).toArray().contains(toolcard::mimeType());
}

ResultTextForm McpClient::textForm() const
{
    if (name != QLatin1String("openai-mcp"))
        return ResultTextForm::Full;
    return !modern || declaresUi() ? ResultTextForm::Compact : ResultTextForm::Full;
}

QString conversationOf(const QJsonObject &params)
{
    const QJsonValue value = params.value(QStringLiteral("_meta")).toObject().value(QStringLiteral("openai/session"));
    if (!value.isString())
        return {};
    const QString id = value.toString().trimmed();
    if (id.isEmpty() || id.size() > 128)
        return {};
    for (const QChar c : id)
        if (c.unicode() < 0x21 || c.unicode() > 0x7e)
            return {};
    return id;
}

} // namespace chat2sbx
