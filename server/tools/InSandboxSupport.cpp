#include "tools/InSandboxSupport.h"

#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {

QString displayPath(const RunningSandbox &sandbox, const QString &path)
{
    if (path.startsWith(QLatin1Char('/')) || path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
        return path;
    const QString base = sandbox.managedWorkspace ? QStringLiteral("~/workspace") : sandbox.workspacePath;
    if (path.isEmpty() || path == QLatin1String("."))
        return base;
    return base + QLatin1Char('/') + (path.startsWith(QLatin1String("./")) ? path.mid(2) : path);
}

QJsonObject sandboxPathProperty()
{
    return schema::str(QStringLiteral("Relative to the workspace, absolute inside the sandbox, or starting with ~/"),
                       kMaxSandboxPathBytes);
}

bool resolveSandbox(SandboxResolver &resolver, const ToolCall &call, ToolArgs &args, RunningSandbox &sandbox)
{
    QString id;
    if (!args.sandboxId(id)) {
        call.responder.error(args.error());
        return false;
    }
    QString error;
    if (!resolver.resolveRunning(id, sandbox, error)) {
        call.responder.error(error);
        return false;
    }
    noteWake(call, sandbox);
    return true;
}

bool resolveSandboxChannel(SandboxResolver &resolver, const ChannelPool &channels, const ToolCall &call, ToolArgs &args,
                           RunningSandbox &sandbox)
{
    if (!resolveSandbox(resolver, call, args, sandbox))
        return false;
    noteChannelStart(call, channels, sandbox);
    return true;
}

void noteWake(const ToolCall &call, const RunningSandbox &sandbox)
{
    if (!sandbox.wokeFromSleep)
        return;
    call.responder.annotate(QStringLiteral("woke_from_sleep"), true);
    call.responder.annotate(QStringLiteral("wake_note"),
                            QStringLiteral("the sandbox was asleep (stopped after a while without tool calls: files and "
                                           "installed packages kept, processes ended) and was woken for this call, which "
                                           "is why it took longer"));
}

void noteChannelStart(const ToolCall &call, const ChannelPool &channels, const RunningSandbox &sandbox)
{
    if (sandbox.wokeFromSleep)
        return;   // the wake note says it already
    const SandboxChannel *channel = channels.find(sandbox.sandboxId);
    if (channel && channel->isHealthy())
        return;
    call.responder.annotate(QStringLiteral("channel_note"),
                            QStringLiteral("chat2sbx was (re)connecting to the sandbox for this call: sbx takes seconds "
                                           "to attach to a sandbox (about 3 s a command on some Linux hosts, 5-6 s for "
                                           "the first one into a sandbox that sat idle), which is why it took longer; "
                                           "the next calls reuse the connection"));
}

QString replyFailure(const ChannelReply &reply)
{
    return reply.channelFailure ? QStringLiteral("could not reach the sandbox: %1").arg(reply.error) : reply.error;
}

} // namespace chat2sbx
