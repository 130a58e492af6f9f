#include "tools/FileTools.h"

namespace chat2sbx {

void registerFileTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    addReadTool(registry, resolver, channels);
    addWriteTool(registry, resolver, channels);
    addEditTool(registry, resolver, channels);
    addSearchTool(registry, resolver, channels);
    addListTool(registry, resolver, channels);
    addApplyPatchTool(registry, resolver, channels);
    addViewImageTool(registry, resolver, channels);
}

} // namespace chat2sbx
