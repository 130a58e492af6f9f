#include "tools/SandboxTools.h"

#include "sandbox/present/SandboxListJson.h"
#include "tools/SandboxToolSupport.h"

namespace chat2sbx {

void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config, ChannelPool *channels,
                          NetworkAccess *network, CheckpointService *checkpoints, PublicPorts *publicPorts)
{
    const SandboxToolContext context{&sandboxes, &config, channels, std::make_shared<SandboxListJson>(), network, checkpoints,
                                     publicPorts};
    addSandboxCreateTool(registry, context);
    addSandboxGetTool(registry, context);
    addSandboxListTool(registry, context);
    addSandboxDestroyTool(registry, context);
    addSandboxExposeTool(registry, context);
    addSandboxUnexposeTool(registry, context);
}

} // namespace chat2sbx
