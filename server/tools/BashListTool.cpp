#include "tools/BashTools.h"

#include "core/Clock.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/bash/BashSessions.h"
#include "tools/BashToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

constexpr int kBashListCommandChars = 500;

ToolDefinition bashListDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("bash_list");
    d.title = QStringLiteral("List commands");
    d.description = QStringLiteral("The sandbox's bash sessions with command, status, exit code and start time: every "
                                   "running one and the 100 most recent that ended.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}}, {QStringLiteral("sandbox_id")});
    const QJsonObject item = schema::result(
        {{QStringLiteral("session_id"), schema::str(QStringLiteral("The bash session"))},
         {QStringLiteral("command"), schema::str(QStringLiteral("The command (shortened)"))},
         {QStringLiteral("cwd"), QJsonObject{{QStringLiteral("type"), QJsonArray{QStringLiteral("string"), QStringLiteral("null")}}}},
         {QStringLiteral("status"), bashStatusProperty()},
         {QStringLiteral("exit_code"), bashExitCodeProperty()},
         {QStringLiteral("started_at"), schema::str(QStringLiteral("ISO-8601 UTC"))},
         {QStringLiteral("lost_reason"), bashLostReasonProperty()}});
    d.outputSchema = schema::result(
        {{QStringLiteral("sessions"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), item}}},
         {QStringLiteral("omitted_ended"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                                       {QStringLiteral("description"), QStringLiteral("Older ended sessions not listed")}}}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Listing the commands…");
    d.presentation.invoked = QStringLiteral("Listed the commands");
    return d;
}

QJsonObject bashSessionRecordJson(const BashSessionRecord &r)
{
    QString command = r.command;
    if (command.size() > kBashListCommandChars)
        command = command.left(kBashListCommandChars) + QStringLiteral("…");
    QJsonObject item{{QStringLiteral("session_id"), r.id},
                     {QStringLiteral("command"), command},
                     {QStringLiteral("cwd"), r.cwd.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.cwd)},
                     {QStringLiteral("status"), bashSessionStatus(r.exited, r.lostReason)},
                     {QStringLiteral("exit_code"), r.exitCode ? QJsonValue(*r.exitCode) : QJsonValue(QJsonValue::Null)},
                     {QStringLiteral("started_at"), isoTime(r.startedAt)}};
    insertBashLostReason(item, r.lostReason);
    return item;
}

void runBashList(SandboxResolver &resolver, BashSessions &sessions, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, sessions.channels(), call, args, sandbox))
        return;
    sessions.list(sandbox, [responder = call.responder](const QList<BashSessionRecord> &records, int omittedEnded) {
        QJsonArray items;
        for (const auto &r : records)
            items.append(bashSessionRecordJson(r));
        QJsonObject result{{QStringLiteral("sessions"), items}};
        if (omittedEnded > 0)
            result.insert(QStringLiteral("omitted_ended"), omittedEnded);
        responder.ok(result);
    });
}

} // namespace

void addBashListTool(ToolRegistry &registry, SandboxResolver &resolver, BashSessions &sessions)
{
    registry.add(bashListDefinition(), [&resolver, &sessions](const ToolCall &call) { runBashList(resolver, sessions, call); });
}

} // namespace chat2sbx
