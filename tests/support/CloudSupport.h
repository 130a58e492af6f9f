#pragma once

#include "McpTestClient.h"

#include <QJsonObject>
#include <QString>

namespace chat2sbx::test {

// The sandbox_id of a sandbox_create in the cloud that succeeded (`extra`: size, ttl); empty when it
// failed (the client's lastBody says why).
inline QString createInCloud(McpTestClient &mcp, QJsonObject extra = {}, int timeoutMs = 120000)
{
    extra.insert(QStringLiteral("placement"), QStringLiteral("cloud"));
    const QJsonObject made = mcp.callToolResult(QStringLiteral("sandbox_create"), extra, timeoutMs);
    return made.value(QStringLiteral("isError")).toBool(true)
               ? QString()
               : made.value(QStringLiteral("structuredContent")).toObject().value(QStringLiteral("sandbox_id")).toString();
}

} // namespace chat2sbx::test
