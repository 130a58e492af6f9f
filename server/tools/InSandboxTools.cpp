#include "tools/InSandboxTools.h"

#include "tools/BashTools.h"
#include "tools/FileTools.h"
#include "tools/ImageTools.h"
#include "tools/PatchTools.h"

namespace chat2sbx {

void registerInSandboxTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels, BashSessions &sessions)
{
    registerBashTools(registry, resolver, sessions);
    registerFileTools(registry, resolver, channels);
    registerPatchTools(registry, resolver, channels);
    registerImageTools(registry, resolver, channels);
}

} // namespace chat2sbx
