#pragma once
// Tests call tool handlers directly; this gives them the step ToolCallRunner takes first in the
// server: the arguments are checked against the tool's input schema, the one statement of their rules.

#include "mcp/SchemaValidator.h"
#include "mcp/ToolRegistry.h"

#include <optional>

namespace chat2sbx::test {

// The isError answer the MCP layer gives when `args` break the input schema of `entry`; nullopt
// when they conform and the handler runs.
inline std::optional<ToolResult> schemaViolation(const ToolRegistry::Entry &entry, const QJsonObject &args)
{
    const QString violation = SchemaValidator::validate(entry.definition.inputSchema, args);
    if (violation.isEmpty())
        return std::nullopt;
    return ToolResult::error(violation);
}

} // namespace chat2sbx::test
