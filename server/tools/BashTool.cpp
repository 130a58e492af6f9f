#include "tools/BashTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "tools/BashToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

#include <limits>

namespace chat2sbx {
namespace {

constexpr int kMaxBashCommandBytes = 256 * 1024;
constexpr int kMaxBashEnvEntries = 100;
constexpr int kMaxBashEnvNameBytes = 128;
constexpr int kMaxBashEnvValueBytes = 32 * 1024;
constexpr qint64 kMaxBashTimeoutMs = 7LL * 24 * 3600 * 1000;

QJsonObject bashEnvProperty()
{
    QJsonObject name = schema::str(QStringLiteral("Variable name"), kMaxBashEnvNameBytes);
    name.insert(QStringLiteral("pattern"), QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    const QJsonObject variable = schema::object({{QStringLiteral("name"), name},
                                                 {QStringLiteral("value"), schema::str(QStringLiteral("Value"), kMaxBashEnvValueBytes)}},
                                                {QStringLiteral("name"), QStringLiteral("value")});
    return {{QStringLiteral("type"), QStringLiteral("array")},
            {QStringLiteral("description"), QStringLiteral("Extra environment variables")},
            {QStringLiteral("maxItems"), kMaxBashEnvEntries},
            {QStringLiteral("items"), variable}};
}

ToolDefinition bashDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("bash");
    d.title = QStringLiteral("Run a shell command");
    d.description = QStringLiteral(
        "Use to run a shell command in the sandbox (build, test, git, install). stdout and stderr are combined. Waits up "
        "to yield_time_ms; if the command is still running, returns status running and a session_id for bash_poll, "
        "bash_write or bash_stop. A command stopped by timeout_ms exits with 124 and timed_out true. Set stdin to answer "
        "prompts later with bash_write; otherwise stdin is empty.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("command"), schema::str(QStringLiteral("The bash command line"), kMaxBashCommandBytes)},
         {QStringLiteral("cwd"), schema::str(QStringLiteral("Working directory (default: the workspace)"), kMaxSandboxPathBytes)},
         {QStringLiteral("env"), bashEnvProperty()},
         {QStringLiteral("stdin"), schema::boolean(QStringLiteral("Keep stdin open for bash_write (default false: stdin is empty)"))},
         {QStringLiteral("yield_time_ms"), bashYieldProperty()},
         {QStringLiteral("timeout_ms"), schema::integer(QStringLiteral("Kill the command after this many ms"), 1000, kMaxBashTimeoutMs)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("command")});
    d.outputSchema = bashSnapshotSchema();
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Running the command…");
    d.presentation.invoked = QStringLiteral("Ran the command");
    d.presentation.cardView = ToolCardView::Terminal;
    d.presentation.payloadFields = {QStringLiteral("output")};
    return d;
}

void runBash(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    BashStartSpec spec;
    qint64 yield = 0, timeout = 0;
    if (!args.string(QStringLiteral("command"), spec.command, kMaxBashCommandBytes)
        || !args.string(QStringLiteral("cwd"), spec.cwd, kMaxSandboxPathBytes, ToolArgs::Presence::Optional)
        || !args.integer(QStringLiteral("yield_time_ms"), yield, 10000)
        || !args.integer(QStringLiteral("timeout_ms"), timeout, 0))
        return call.responder.error(args.error());
    if (!args.boolean(QStringLiteral("stdin"), spec.stdinPipe, false))
        return call.responder.error(args.error());
    // The schema states the entries' shape, count and names; bytes and NUL are the reads' part.
    for (const QJsonValue &entry : call.arguments.value(QStringLiteral("env")).toArray()) {
        ToolArgs variable(entry.toObject());
        QString name, value;
        if (!variable.string(QStringLiteral("name"), name, kMaxBashEnvNameBytes)
            || !variable.string(QStringLiteral("value"), value, kMaxBashEnvValueBytes,
                                ToolArgs::Presence::RequiredMayBeEmpty))
            return call.responder.error(QStringLiteral("env: ") + variable.error());
        spec.env.append({name, value});
    }
    spec.yieldMs = static_cast<int>(yield);
    spec.timeoutMs = static_cast<int>(std::min<qint64>(timeout, std::numeric_limits<int>::max()));
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.start(sandbox, spec, answerWithSnapshot(call.responder), call.cancellation);
}

} // namespace

void addBashTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    registry.add(bashDefinition(), [&resolver, &sessions](const ToolCall &call) { runBash(resolver, sessions, call); });
}

} // namespace chat2sbx
