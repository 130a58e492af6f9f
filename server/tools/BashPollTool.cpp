#include "tools/BashTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "tools/BashToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {
namespace {

ToolDefinition bashPollDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("bash_poll");
    d.title = QStringLiteral("Read more output of a command");
    d.description = QStringLiteral(
        "Waits up to yield_time_ms for new output or the exit of a bash session and returns only output not returned "
        "before (at most 60,000 bytes; has_more_output says when more is buffered).");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
                                    {QStringLiteral("session_id"), bashSessionIdProperty()},
                                    {QStringLiteral("yield_time_ms"), bashYieldProperty()}},
                                   {QStringLiteral("sandbox_id"), QStringLiteral("session_id")});
    d.outputSchema = bashSnapshotSchema();
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Reading the command's output…");
    d.presentation.invoked = QStringLiteral("Read the command's output");
    d.presentation.cardView = ToolCardView::Terminal;
    d.presentation.payloadFields = {QStringLiteral("output")};
    return d;
}

void runBashPoll(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId;
    qint64 yield = 0;
    if (!readBashSessionId(call, args, sessionId))
        return;
    if (!args.integer(QStringLiteral("yield_time_ms"), yield, 10000))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.poll(sandbox, sessionId, static_cast<int>(yield), answerWithSnapshot(call.responder), call.cancellation);
}

} // namespace

void addBashPollTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    registry.add(bashPollDefinition(), [&resolver, &sessions](const ToolCall &call) { runBashPoll(resolver, sessions, call); });
}

} // namespace chat2sbx
