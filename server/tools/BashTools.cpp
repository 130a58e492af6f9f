#include "tools/BashTools.h"

#include "core/Clock.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "sandbox/channel/SandboxResolver.h"
#include "tools/InSandboxSupport.h"
#include "tools/NetworkBlockDetector.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

constexpr int kMaxCommandBytes = 256 * 1024;
constexpr int kMaxPathBytes = 4096;
constexpr int kMaxEnvEntries = 100;
constexpr int kMaxEnvNameBytes = 128;
constexpr int kMaxEnvValueBytes = 32 * 1024;
constexpr int kMaxInputBytes = 64 * 1024;
constexpr qint64 kMaxYieldMs = 60000;
constexpr qint64 kMaxTimeoutMs = 7LL * 24 * 3600 * 1000;

// running / exited / lost (its processes died with the VM, no exit status): lost says why.
QString sessionStatus(bool exited, const QString &lostReason)
{
    if (!lostReason.isEmpty())
        return QStringLiteral("lost");
    return exited ? QStringLiteral("exited") : QStringLiteral("running");
}

void insertLostReason(QJsonObject &o, const QString &lostReason)
{
    if (!lostReason.isEmpty())
        o.insert(QStringLiteral("lost_reason"), lostReason);
}

QJsonObject snapshotJson(const BashSnapshot &s)
{
    QJsonObject o{{QStringLiteral("session_id"), s.sessionId},
                  {QStringLiteral("status"), sessionStatus(s.exited, s.lostReason)},
                  {QStringLiteral("exit_code"), s.exitCode ? QJsonValue(*s.exitCode) : QJsonValue(QJsonValue::Null)},
                  {QStringLiteral("timed_out"), s.timedOut},
                  {QStringLiteral("output"), s.output},
                  {QStringLiteral("has_more_output"), s.hasMoreOutput}};
    insertLostReason(o, s.lostReason);
    if (const std::optional<NetworkBlock> block = detectNetworkBlock(s.output))
        o.insert(QStringLiteral("network_blocked"), networkBlockJson(*block));
    return o;
}

QJsonObject statusProperty()
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("description"), QStringLiteral("lost: its processes ended without an exit status (the sandbox "
                                                           "stopped); lost_reason says why, files are kept")},
            {QStringLiteral("enum"), QJsonArray{QStringLiteral("running"), QStringLiteral("exited"), QStringLiteral("lost")}}};
}

QJsonObject lostReasonProperty()
{
    return schema::str(QStringLiteral("Why the session is lost"));
}

QJsonObject exitCodeProperty()
{
    return {{QStringLiteral("type"), QJsonArray{QStringLiteral("integer"), QStringLiteral("null")}}};
}

QJsonObject networkBlockedProperty()
{
    QJsonObject o = schema::object({{QStringLiteral("hosts"), schema::arrayOf(schema::str(QStringLiteral("host pattern for network_request")))},
                                    {QStringLiteral("hint"), schema::str(QStringLiteral("what to do"))}},
                                   {QStringLiteral("hosts"), QStringLiteral("hint")});
    o.insert(QStringLiteral("description"), QStringLiteral("Present when the output shows the sandbox's network policy "
                                                           "blocked a request: ask for access with network_request"));
    return o;
}

QJsonObject snapshotSchema()
{
    return schema::result({{QStringLiteral("session_id"), schema::str(QStringLiteral("The bash session"))},
                           {QStringLiteral("status"), statusProperty()},
                           {QStringLiteral("exit_code"), exitCodeProperty()},
                           {QStringLiteral("timed_out"), schema::boolean(QStringLiteral("Stopped by timeout_ms (exit code 124)"))},
                           {QStringLiteral("output"), schema::str(QStringLiteral("Output not returned before"))},
                           {QStringLiteral("has_more_output"), schema::boolean(QStringLiteral("More output is buffered; poll again"))},
                           {QStringLiteral("lost_reason"), lostReasonProperty()},
                           {QStringLiteral("network_blocked"), networkBlockedProperty()}},
                          {QStringLiteral("session_id"), QStringLiteral("status"), QStringLiteral("exit_code"),
                           QStringLiteral("output"), QStringLiteral("has_more_output")});
}

// Resolves the sandbox (renewing its idle deadline) or answers the call with the reason.
bool resolve(SandboxResolver &resolver, const ChannelPool &channels, const ToolCall &call, ToolArgs &args,
             RunningSandbox &sandbox)
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
    noteChannelStart(call, channels, sandbox);
    return true;
}

bool readSessionId(const ToolCall &call, ToolArgs &args, QString &sessionId)
{
    if (!args.string(QStringLiteral("session_id"), sessionId, 64)) {
        call.responder.error(args.error());
        return false;
    }
    return true;
}

BashSessions::SnapshotDone answer(const ToolResponder &responder)
{
    return [responder](bool ok, const QString &error, const BashSnapshot &s) {
        if (ok)
            responder.ok(snapshotJson(s));
        else
            responder.error(error);
    };
}

void handleBash(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    BashStartSpec spec;
    qint64 yield = 0, timeout = 0;
    if (!args.string(QStringLiteral("command"), spec.command, kMaxCommandBytes)
        || !args.string(QStringLiteral("cwd"), spec.cwd, kMaxPathBytes, false)
        || !args.integer(QStringLiteral("yield_time_ms"), yield, 10000)
        || !args.integer(QStringLiteral("timeout_ms"), timeout, 0))
        return call.responder.error(args.error());
    if (!args.boolean(QStringLiteral("stdin"), spec.stdinPipe, false))
        return call.responder.error(args.error());
    // The schema states the entries' shape, count and names; bytes and NUL are the reads' part.
    for (const QJsonValue &entry : call.arguments.value(QStringLiteral("env")).toArray()) {
        ToolArgs variable(entry.toObject());
        QString name, value;
        if (!variable.string(QStringLiteral("name"), name, kMaxEnvNameBytes)
            || !variable.string(QStringLiteral("value"), value, kMaxEnvValueBytes, true, true))
            return call.responder.error(QStringLiteral("env: ") + variable.error());
        spec.env.append({name, value});
    }
    spec.yieldMs = static_cast<int>(yield);
    spec.timeoutMs = static_cast<int>(std::min<qint64>(timeout, std::numeric_limits<int>::max()));
    RunningSandbox sandbox;
    if (!resolve(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.start(sandbox, spec, answer(call.responder), call.cancellation);
}

void handlePoll(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId;
    qint64 yield = 0;
    if (!readSessionId(call, args, sessionId))
        return;
    if (!args.integer(QStringLiteral("yield_time_ms"), yield, 10000))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolve(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.poll(sandbox, sessionId, static_cast<int>(yield), answer(call.responder), call.cancellation);
}

void handleStop(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId;
    if (!readSessionId(call, args, sessionId))
        return;
    RunningSandbox sandbox;
    if (!resolve(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.stop(sandbox, sessionId, answer(call.responder));
}

void handleWrite(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sessionId, input;
    bool close = false;
    qint64 yield = 0;
    if (!readSessionId(call, args, sessionId))
        return;
    if (!args.string(QStringLiteral("input"), input, kMaxInputBytes, true, true)
        || !args.boolean(QStringLiteral("close_stdin"), close, false)
        || !args.integer(QStringLiteral("yield_time_ms"), yield, 1000))
        return call.responder.error(args.error());
    if (input.isEmpty() && !close)
        return call.responder.error(QStringLiteral("nothing to do: give input, close_stdin, or both"));
    RunningSandbox sandbox;
    if (!resolve(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.write(sandbox, sessionId, input.toUtf8(), close, static_cast<int>(yield), answer(call.responder),
                   call.cancellation);
}

void handleList(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    RunningSandbox sandbox;
    if (!resolve(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.list(sandbox, [responder = call.responder](const QList<BashSessionRecord> &records, int omittedEnded) {
        QJsonArray items;
        for (const auto &r : records) {
            QString command = r.command;
            if (command.size() > 500)
                command = command.left(500) + QStringLiteral("…");
            QJsonObject item{
                {QStringLiteral("session_id"), r.id},
                {QStringLiteral("command"), command},
                {QStringLiteral("cwd"), r.cwd.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.cwd)},
                {QStringLiteral("status"), sessionStatus(r.exited, r.lostReason)},
                {QStringLiteral("exit_code"), r.exitCode ? QJsonValue(*r.exitCode) : QJsonValue(QJsonValue::Null)},
                {QStringLiteral("started_at"), isoTime(r.startedAt)}};
            insertLostReason(item, r.lostReason);
            items.append(item);
        }
        QJsonObject result{{QStringLiteral("sessions"), items}};
        if (omittedEnded > 0)
            result.insert(QStringLiteral("omitted_ended"), omittedEnded);
        responder.ok(result);
    });
}

} // namespace

void registerBashTools(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    const QJsonObject sandboxId = schema::sandboxIdProperty();
    const QJsonObject sessionId = schema::id(QStringLiteral("bash_"), QStringLiteral("A session id returned by bash"));
    QJsonObject envName = schema::str(QStringLiteral("Variable name"), kMaxEnvNameBytes);
    envName.insert(QStringLiteral("pattern"), QStringLiteral("^[A-Za-z_][A-Za-z0-9_]{0,127}$"));
    const QJsonObject yield = schema::integer(
        QStringLiteral("How long to wait for output or exit before returning, in ms (default 10000)"), 0, kMaxYieldMs);

    ToolDefinition bash;
    bash.name = QStringLiteral("bash");
    bash.title = QStringLiteral("Run a shell command");
    bash.description = QStringLiteral(
        "Use to run a shell command in the sandbox (build, test, git, install). stdout and stderr are combined. Waits up "
        "to yield_time_ms; if the command is still running, returns status running and a session_id for bash_poll, "
        "bash_write or bash_stop. A command stopped by timeout_ms exits with 124 and timed_out true. Set stdin to answer "
        "prompts later with bash_write; otherwise stdin is empty.");
    bash.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("command"), schema::str(QStringLiteral("The bash command line"), kMaxCommandBytes)},
         {QStringLiteral("cwd"), schema::str(QStringLiteral("Working directory (default: the workspace)"), kMaxPathBytes)},
         {QStringLiteral("env"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                             {QStringLiteral("description"), QStringLiteral("Extra environment variables")},
                                             {QStringLiteral("maxItems"), kMaxEnvEntries},
                                             {QStringLiteral("items"), schema::object({{QStringLiteral("name"), envName},
                                                                                        {QStringLiteral("value"), schema::str(QStringLiteral("Value"), kMaxEnvValueBytes)}},
                                                                                       {QStringLiteral("name"), QStringLiteral("value")})}}},
         {QStringLiteral("stdin"), schema::boolean(QStringLiteral("Keep stdin open for bash_write (default false: stdin is empty)"))},
         {QStringLiteral("yield_time_ms"), yield},
         {QStringLiteral("timeout_ms"), schema::integer(QStringLiteral("Kill the command after this many ms"), 1000, kMaxTimeoutMs)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("command")});
    bash.outputSchema = snapshotSchema();
    bash.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    bash.presentation = {QStringLiteral("Running the command…"), QStringLiteral("Ran the command"), true, {QStringLiteral("output")}};
    registry.add(bash, [&resolver, &sessions](const ToolCall &call) { handleBash(resolver, sessions, call); });

    ToolDefinition poll;
    poll.name = QStringLiteral("bash_poll");
    poll.title = QStringLiteral("Read more output of a command");
    poll.description = QStringLiteral(
        "Waits up to yield_time_ms for new output or the exit of a bash session and returns only output not returned "
        "before (at most 60,000 bytes; has_more_output says when more is buffered).");
    poll.inputSchema = schema::object({{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("session_id"), sessionId},
                                       {QStringLiteral("yield_time_ms"), yield}},
                                      {QStringLiteral("sandbox_id"), QStringLiteral("session_id")});
    poll.outputSchema = snapshotSchema();
    poll.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    poll.presentation = {QStringLiteral("Reading the command's output…"), QStringLiteral("Read the command's output"), true, {QStringLiteral("output")}};
    registry.add(poll, [&resolver, &sessions](const ToolCall &call) { handlePoll(resolver, sessions, call); });

    ToolDefinition stop;
    stop.name = QStringLiteral("bash_stop");
    stop.title = QStringLiteral("Stop a command");
    stop.description = QStringLiteral(
        "Use to end a command that is no longer needed. Sends SIGTERM to its processes and SIGKILL 1.5 s later, then "
        "returns the final status and any output not returned yet. Stopping an exited session only returns that.");
    stop.inputSchema = schema::object({{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("session_id"), sessionId}},
                                      {QStringLiteral("sandbox_id"), QStringLiteral("session_id")});
    stop.outputSchema = snapshotSchema();
    stop.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    stop.presentation = {QStringLiteral("Stopping the command…"), QStringLiteral("Stopped the command"), true, {QStringLiteral("output")}};
    registry.add(stop, [&resolver, &sessions](const ToolCall &call) { handleStop(resolver, sessions, call); });

    ToolDefinition write;
    write.name = QStringLiteral("bash_write");
    write.title = QStringLiteral("Type into a command");
    write.description = QStringLiteral(
        "Use to answer a prompt or drive a REPL: writes input to the stdin of a command started with stdin true (add "
        "\\n to end a line), optionally closes stdin (EOF), then returns new output like bash_poll.");
    write.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("session_id"), sessionId},
         {QStringLiteral("input"), schema::str(QStringLiteral("Text to send, e.g. \"yes\\n\""), kMaxInputBytes)},
         {QStringLiteral("close_stdin"), schema::boolean(QStringLiteral("Close stdin after the input (default false)"))},
         {QStringLiteral("yield_time_ms"), schema::integer(QStringLiteral("How long to wait for output, in ms (default 1000)"), 0, kMaxYieldMs)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("session_id"), QStringLiteral("input")});
    write.outputSchema = snapshotSchema();
    write.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    write.presentation = {QStringLiteral("Typing into the command…"), QStringLiteral("Typed into the command"), true, {QStringLiteral("output")}};
    registry.add(write, [&resolver, &sessions](const ToolCall &call) { handleWrite(resolver, sessions, call); });

    ToolDefinition list;
    list.name = QStringLiteral("bash_list");
    list.title = QStringLiteral("List commands");
    list.description = QStringLiteral("The sandbox's bash sessions with command, status, exit code and start time: every "
                                      "running one and the 100 most recent that ended.");
    list.inputSchema = schema::object({{QStringLiteral("sandbox_id"), sandboxId}}, {QStringLiteral("sandbox_id")});
    const QJsonObject item = schema::result(
        {{QStringLiteral("session_id"), schema::str(QStringLiteral("The bash session"))},
         {QStringLiteral("command"), schema::str(QStringLiteral("The command (shortened)"))},
         {QStringLiteral("cwd"), QJsonObject{{QStringLiteral("type"), QJsonArray{QStringLiteral("string"), QStringLiteral("null")}}}},
         {QStringLiteral("status"), statusProperty()},
         {QStringLiteral("exit_code"), exitCodeProperty()},
         {QStringLiteral("started_at"), schema::str(QStringLiteral("ISO-8601 UTC"))},
         {QStringLiteral("lost_reason"), lostReasonProperty()}},
        {QStringLiteral("session_id"), QStringLiteral("command"), QStringLiteral("status"), QStringLiteral("exit_code"),
         QStringLiteral("started_at")});
    list.outputSchema = schema::result(
        {{QStringLiteral("sessions"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), item}}},
         {QStringLiteral("omitted_ended"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                                       {QStringLiteral("description"), QStringLiteral("Older ended sessions not listed")}}}},
        {QStringLiteral("sessions")});
    list.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    list.presentation = {QStringLiteral("Listing the commands…"), QStringLiteral("Listed the commands"), false};
    registry.add(list, [&resolver, &sessions](const ToolCall &call) { handleList(resolver, sessions, call); });
}

} // namespace chat2sbx
