// Two tools in one file.
#include "mcp/Tool.h"

chat2sbx::ToolDefinition first()
{
    chat2sbx::ToolDefinition d;
    d.name = QStringLiteral("first_tool");
    return d;
}

chat2sbx::ToolDefinition second()
{
    chat2sbx::ToolDefinition d;
    d.name = QStringLiteral("second_tool");
    return d;
}
