#pragma once

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// apply_patch: a multi-file patch (unified diff or "*** Begin Patch" envelope) applied all or nothing.
void registerPatchTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);

} // namespace chat2sbx
