#pragma once

namespace chat2sbx {

class BashSessions;
class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// bash, bash_poll, bash_stop, bash_list (BashTools.cpp).
void registerBashTools(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);
// read, write, edit, search, list (FileTools.cpp).
void registerFileTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
// Both families: everything that runs inside a sandbox.
void registerInSandboxTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            BashSessions &sessions);

} // namespace chat2sbx
