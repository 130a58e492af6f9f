#pragma once

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// read, write, edit, search, list: files in a sandbox, through its control channel.
void registerFileTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);

} // namespace chat2sbx
