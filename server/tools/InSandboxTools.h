#pragma once

namespace chat2sbx {

class BashSessions;
class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// Every tool that runs inside a sandbox: the bash and file families.
void registerInSandboxTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            BashSessions &sessions);

} // namespace chat2sbx
