#pragma once
// Broken on purpose: sandbox/ rooms stay out of the MCP protocol layer, although it ranks lower.
#include "mcp/Tool.h"
