#pragma once

namespace chat2sbx {

class BashSessions;
class SandboxResolver;
class ToolRegistry;

// bash, bash_poll, bash_stop, bash_write, bash_list: commands in a sandbox, run as detached sessions.
void registerBashTools(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addBashTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);
void addBashPollTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);
void addBashStopTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);
void addBashWriteTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);
void addBashListTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions);

} // namespace chat2sbx
