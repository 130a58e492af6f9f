#pragma once

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// view_image: an image file in the sandbox returned as MCP image content, scaled down when large.
void registerImageTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);

} // namespace chat2sbx
