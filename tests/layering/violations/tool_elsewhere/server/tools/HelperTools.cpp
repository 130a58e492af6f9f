// A tool defined in a family's register file instead of a <Name>Tool.cpp of its own.
#include "mcp/Tool.h"

chat2sbx::ToolDefinition hidden()
{
    chat2sbx::ToolDefinition d;
    d.name = QStringLiteral("hidden_tool");
    return d;
}
