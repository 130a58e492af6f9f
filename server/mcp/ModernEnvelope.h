#pragma once

#include "mcp/McpClient.h"

#include <QJsonObject>
#include <QString>

#include <optional>

namespace chat2sbx {

// The per-request metadata of the 2026-07-28 revision (basic/versioning.mdx): params._meta carries
// io.modelcontextprotocol/protocolVersion and /clientCapabilities (required) and /clientInfo (SHOULD).
namespace modernenvelope {

// Which era one request belongs to, from its body and its MCP-Protocol-Version header alone:
// modern when _meta names a non-legacy version or carries client capabilities, or the header names
// a version that is not a legacy one; legacy otherwise (an initialize, or a message of a session).
bool isModernRequest(const QJsonObject &params, const std::optional<QString> &headerVersion);

// _meta's protocol version, when it is a string.
std::optional<QString> metaVersion(const QJsonObject &params);

// The client the envelope describes; an empty optional with `problem` set when a required field is
// missing or malformed (answered -32602).
std::optional<McpClient> parse(const QJsonObject &params, QString &problem);

} // namespace modernenvelope
} // namespace chat2sbx
