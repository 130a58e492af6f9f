#pragma once

#include <QString>

namespace chat2sbx::ui {

// The name a person knows an MCP client by: ChatGPT's connector introduces itself as "openai-mcp".
// Any other name is shown as the client gave it (escaped: core/LogText.h).
QString clientShownName(const QString &clientName);

} // namespace chat2sbx::ui
