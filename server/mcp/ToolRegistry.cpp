#include "mcp/ToolRegistry.h"

#include "mcp/ToolCard.h"

#include <QJsonDocument>
#include <QLoggingCategory>
#include <QRegularExpression>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcToolRegistry, "chat2sbx.mcp.tools")

bool ToolRegistry::isValidToolName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[a-z0-9_]{1,64}$"));
    return re.match(name).hasMatch();
}

bool ToolRegistry::add(const ToolDefinition &definition, ToolHandler handler)
{
    if (!isValidToolName(definition.name) || find(definition.name) || !handler) {
        qCWarning(lcToolRegistry).noquote() << "cannot register tool" << definition.name;
        return false;
    }
    m_entries.append({definition, std::move(handler)});
    m_listResultJson.clear();
    return true;
}

void ToolRegistry::setToolCardsEnabled(bool enabled)
{
    m_toolCards = enabled;
    m_listResultJson.clear();
}

const ToolRegistry::Entry *ToolRegistry::find(const QString &name) const
{
    for (const Entry &e : m_entries)
        if (e.definition.name == name)
            return &e;
    return nullptr;
}

const QByteArray &ToolRegistry::listResultJson() const
{
    if (m_listResultJson.isEmpty())
        m_listResultJson = QJsonDocument(QJsonObject{{QStringLiteral("tools"), toJson()}}).toJson(QJsonDocument::Compact);
    return m_listResultJson;
}

QJsonArray ToolRegistry::toJson() const
{
    QJsonArray tools;
    for (const Entry &e : m_entries) {
        const ToolDefinition &d = e.definition;
        QJsonObject tool{
            {QStringLiteral("name"), d.name},
            {QStringLiteral("title"), d.title},
            {QStringLiteral("description"), d.description},
            {QStringLiteral("inputSchema"), d.inputSchema},
            {QStringLiteral("annotations"), QJsonObject{
                 {QStringLiteral("title"), d.title},
                 {QStringLiteral("readOnlyHint"), d.annotations.readOnly},
                 {QStringLiteral("destructiveHint"), d.annotations.destructive},
                 {QStringLiteral("idempotentHint"), d.annotations.idempotent},
                 {QStringLiteral("openWorldHint"), d.annotations.openWorld},
             }},
        };
        if (!d.outputSchema.isEmpty())
            tool.insert(QStringLiteral("outputSchema"), d.outputSchema);
        QJsonObject meta = d.meta;
        if (!d.presentation.invoking.isEmpty())
            meta.insert(QStringLiteral("openai/toolInvocation/invoking"), d.presentation.invoking);
        if (!d.presentation.invoked.isEmpty())
            meta.insert(QStringLiteral("openai/toolInvocation/invoked"), d.presentation.invoked);
        if (hasCard(d)) {
            const QJsonObject card = toolcard::toolMeta();
            for (auto it = card.begin(); it != card.end(); ++it)
                meta.insert(it.key(), it.value());
        }
        if (!meta.isEmpty())
            tool.insert(QStringLiteral("_meta"), meta);
        tools.append(tool);
    }
    return tools;
}

} // namespace chat2sbx
