#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// The tool card: one self-contained HTML page (joined at build time from resources/widgets/tool-card/) that
// MCP Apps hosts and ChatGPT draw for the results of the tools whose ToolPresentation::cardView is set; the
// result's _meta names the view (docs/TOOL_CARDS.md).
namespace toolcard {

QString uri();        // ui://widget/chat2sbx-tool-card.html
QString mimeType();   // text/html;profile=mcp-app
// The tool definition's _meta keys that point a host at the card.
QJsonObject toolMeta();
// The resource's _meta: no network at all (empty CSP domain lists), in the MCP Apps and ChatGPT spellings.
QJsonObject resourceMeta();
// The page, from the Qt resource compiled into chat2sbx_server.
QString html();

} // namespace toolcard
} // namespace chat2sbx
