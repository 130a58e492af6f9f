#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// The resources chat2sbx serves over MCP (resources/list, resources/read, resources/templates/list):
// today only the tool card (mcp/ToolCard.h).
namespace mcpresources {

QJsonObject listResult();
QJsonObject templatesListResult();
// The resources/read result for `uri`; false when no resource has that uri.
bool readResult(const QString &uri, QJsonObject &result);

} // namespace mcpresources
} // namespace chat2sbx
