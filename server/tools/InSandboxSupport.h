#pragma once

#include "mcp/Tool.h"
#include "sandbox/channel/SandboxResolver.h"

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

class ChannelPool;
class ToolArgs;
struct ChannelReply;

// The longest path a tool takes inside the sandbox, in UTF-8 bytes.
constexpr int kMaxSandboxPathBytes = 4096;
// Helper requests on files (read, get, write, list, apply) time out after this long.
constexpr int kFileRequestTimeoutMs = 30000;

// The `path` argument of the file tools: a file in the sandbox, relative to its workspace or not.
QJsonObject sandboxPathProperty();

// The path as results show it: relative paths are shown under the workspace as seen in the VM
// (~/workspace for managed workspaces, never the host data directory).
QString displayPath(const RunningSandbox &sandbox, const QString &path);

// sandbox_id -> running sandbox (renewing its idle deadline); otherwise answers the call with the
// reason and returns false.
bool resolveSandbox(SandboxResolver &resolver, const ToolCall &call, ToolArgs &args, RunningSandbox &sandbox);
// resolveSandbox for a tool that talks to the sandbox's control channel next: the result also says
// when that channel had to be (re)started (noteChannelStart).
bool resolveSandboxChannel(SandboxResolver &resolver, const ChannelPool &channels, const ToolCall &call, ToolArgs &args,
                           RunningSandbox &sandbox);

// When resolving woke a sleeping sandbox, the call's result says so (woke_from_sleep, wake_note).
void noteWake(const ToolCall &call, const RunningSandbox &sandbox);

// When the sandbox's control channel is not up yet (a server just started, a channel that exited),
// the call waits for sbx to attach, seconds on a slow host: the result says so (channel_note).
void noteChannelStart(const ToolCall &call, const ChannelPool &channels, const RunningSandbox &sandbox);

// The readable reason of a failed helper request.
QString replyFailure(const ChannelReply &reply);

} // namespace chat2sbx
