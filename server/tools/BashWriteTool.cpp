#include "tools/BashTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "tools/BashToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {
namespace {

constexpr int kMaxBashInputBytes = 64 * 1024;

ToolDefinition bashWriteDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("bash_write");
    d.title = QStringLiteral("Type into a command");
    d.description = QStringLiteral(
        "Use to answer a prompt or drive a REPL: writes input to the stdin of a command started with stdin true (add "
        "\\n to end a line), optionally closes stdin (EOF), then returns new output like bash_poll.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("session_id"), bashSessionIdProperty()},
         {QStringLiteral("input"), schema::str(QStringLiteral("Text to send, e.g. \"yes\\n\""), kMaxBashInputBytes)},
         {QStringLiteral("close_stdin"), schema::boolean(QStringLiteral("Close stdin after the input (default false)"))},
         {QStringLiteral("yield_time_ms"),
          schema::integer(QStringLiteral("How long to wait for output, in ms (default 1000)"), 0, kMaxBashYieldMs)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("session_id"), QStringLiteral("input")});
    d.outputSchema = bashSnapshotSchema();
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Typing into the command…");
    d.presentation.invoked = QStringLiteral("Typed into the command");
    d.presentation.cardView = ToolCardView::Terminal;
    d.presentation.payloadFields = {QStringLiteral("output")};
    return d;
}

void runBashWrite(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId, input;
    bool close = false;
    qint64 yield = 0;
    if (!readBashSessionId(call, args, sessionId))
        return;
    if (!args.string(QStringLiteral("input"), input, kMaxBashInputBytes, ToolArgs::Presence::RequiredMayBeEmpty)
        || !args.boolean(QStringLiteral("close_stdin"), close, false)
        || !args.integer(QStringLiteral("yield_time_ms"), yield, 1000))
        return call.responder.error(args.error());
    if (input.isEmpty() && !close)
        return call.responder.error(QStringLiteral("nothing to do: give input, close_stdin, or both"));
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.write(sandbox, sessionId, input.toUtf8(), close, static_cast<int>(yield), answerWithSnapshot(call.responder),
                   call.cancellation);
}

} // namespace

void addBashWriteTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    registry.add(bashWriteDefinition(), [&resolver, &sessions](const ToolCall &call) { runBashWrite(resolver, sessions, call); });
}

} // namespace chat2sbx
