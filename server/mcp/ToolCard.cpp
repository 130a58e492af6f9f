#include "mcp/ToolCard.h"

#include <QFile>
#include <QJsonArray>

static void initWidgetResources()
{
    Q_INIT_RESOURCE(widgets);
}

namespace chat2sbx::toolcard {

QString uri()
{
    return QStringLiteral("ui://widget/chat2sbx-tool-card.html");
}

QString mimeType()
{
    return QStringLiteral("text/html;profile=mcp-app");
}

QJsonObject toolMeta()
{
    return {{QStringLiteral("ui"), QJsonObject{{QStringLiteral("resourceUri"), uri()}}},
            {QStringLiteral("openai/outputTemplate"), uri()}};
}

QJsonObject resourceMeta()
{
    return {{QStringLiteral("ui"), QJsonObject{{QStringLiteral("csp"), QJsonObject{{QStringLiteral("connectDomains"), QJsonArray()},
                                                                                  {QStringLiteral("resourceDomains"), QJsonArray()}}},
                                               {QStringLiteral("prefersBorder"), true}}},
            {QStringLiteral("openai/widgetCSP"), QJsonObject{{QStringLiteral("connect_domains"), QJsonArray()},
                                                             {QStringLiteral("resource_domains"), QJsonArray()}}},
            {QStringLiteral("openai/widgetDescription"),
             QStringLiteral("Shows a chat2sbx tool result: a command's output, a diff, a sandbox or an image. The result "
                            "itself is already in the conversation; do not repeat it.")},
            {QStringLiteral("openai/widgetPrefersBorder"), true}};
}

QString html()
{
    static const QString page = [] {
        initWidgetResources();
        QFile f(QStringLiteral(":/chat2sbx/widgets/tool-card.html"));
        return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
    }();
    return page;
}

} // namespace chat2sbx::toolcard
