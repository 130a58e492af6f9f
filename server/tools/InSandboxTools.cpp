#include "tools/InSandboxTools.h"

#include "tools/BashTools.h"
#include "tools/FileTools.h"

namespace chat2sbx {

void registerInSandboxTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels, BashSessions &sessions)
{
    registerBashTools(registry, resolver, sessions);
    registerFileTools(registry, resolver, channels);
}

} // namespace chat2sbx
