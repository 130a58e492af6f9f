#include "bindings/ClientNames.h"

#include "core/LogText.h"

namespace chat2sbx::ui {

QString clientShownName(const QString &clientName)
{
    if (clientName == QLatin1String("openai-mcp"))
        return QStringLiteral("ChatGPT");
    return logSafe(clientName, 100);
}

} // namespace chat2sbx::ui
