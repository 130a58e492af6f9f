#include "tools/BashTools.h"

namespace chat2sbx {

void registerBashTools(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    addBashTool(registry, resolver, sessions);
    addBashPollTool(registry, resolver, sessions);
    addBashStopTool(registry, resolver, sessions);
    addBashWriteTool(registry, resolver, sessions);
    addBashListTool(registry, resolver, sessions);
}

} // namespace chat2sbx
