#pragma once

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// The one-line summary the activity log keeps for a tool call, built from its arguments: bash ->
// the command (cut at kMaxCommandChars), file tools -> the path (apply_patch: none, its text is content), sandbox_expose -> the port (and a
// host address asked for), workspace_request -> path and mode, import_file -> the attachment's name
// and destination (never its signed link). Only named, harmless arguments are
// read: never file content, edit strings, environment values or anything else a call carries.
QString auditSummary(const QString &tool, const QJsonObject &arguments);

// The first characters of an MCP session id: enough to tell sessions apart in a log.
QString shortSessionId(const QString &sessionId);

constexpr int kMaxAuditCommandChars = 500;

} // namespace chat2sbx
