#pragma once

namespace chat2sbx {

class BashSessions;
class SandboxResolver;
class ToolRegistry;

// bash, bash_poll, bash_stop, bash_write, bash_list: commands in a sandbox, run as detached sessions.
void registerBashTools(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);

} // namespace chat2sbx
