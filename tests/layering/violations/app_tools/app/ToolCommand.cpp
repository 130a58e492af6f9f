// Broken on purpose: a CLI command calling an MCP tool family instead of the services.
#include "tools/SandboxTools.h"
