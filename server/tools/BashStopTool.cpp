#include "tools/BashTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "tools/BashToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {
namespace {

ToolDefinition bashStopDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("bash_stop");
    d.title = QStringLiteral("Stop a command");
    d.description = QStringLiteral(
        "Use to end a command that is no longer needed. Sends SIGTERM to its processes and SIGKILL 1.5 s later, then "
        "returns the final status and any output not returned yet. Stopping an exited session only returns that.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
                                    {QStringLiteral("session_id"), bashSessionIdProperty()}},
                                   {QStringLiteral("sandbox_id"), QStringLiteral("session_id")});
    d.outputSchema = bashSnapshotSchema();
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Stopping the command…");
    d.presentation.invoked = QStringLiteral("Stopped the command");
    d.presentation.cardView = ToolCardView::Terminal;
    d.presentation.payloadFields = {QStringLiteral("output")};
    return d;
}

void runBashStop(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId;
    if (!readBashSessionId(call, args, sessionId))
        return;
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.stop(sandbox, sessionId, answerWithSnapshot(call.responder));
}

} // namespace

void addBashStopTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    registry.add(bashStopDefinition(), [&resolver, &sessions](const ToolCall &call) { runBashStop(resolver, sessions, call); });
}

} // namespace chat2sbx
