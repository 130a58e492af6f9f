#include "tools/CheckpointTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/present/CheckpointJson.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QTimer>

namespace chat2sbx {
namespace {

ToolDefinition checkpointDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_checkpoint");
    d.title = QStringLiteral("Checkpoint a sandbox");
    d.description = QStringLiteral(
        "Use before something risky (a migration, an upgrade): saves the sandbox as it is now — its installed packages, HOME "
        "and the rest of its disk, and a scratch workspace — under a checkpoint_id. The sandbox stops while it is saved "
        "(running commands end; the next tool call starts it again). Not kept: memory, processes, a direct-mode folder "
        "(the user's own), the sandbox's Docker images. Long saves answer with state saving: sandbox_checkpoints shows "
        "when it is ready.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("label"), schema::str(QStringLiteral("A few words to recognise it by"), CheckpointService::kMaxLabelChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("true: commands still running in the sandbox may end (default false: refused)"))}},
        {QStringLiteral("sandbox_id")});
    d.outputSchema = schema::result({{QStringLiteral("checkpoint_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("state"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("not_kept"), schema::arrayOf(schema::typed(QStringLiteral("string")))}});
    // It stops the sandbox (running commands may end): not a harmless addition.
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Saving a checkpoint of the sandbox…");
    d.presentation.invoked = QStringLiteral("Saved a checkpoint of the sandbox");
    return d;
}

ToolDefinition listDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_checkpoints");
    d.title = QStringLiteral("List a sandbox's checkpoints");
    d.description = QStringLiteral("Use to see a sandbox's checkpoints (saving, ready or failed and why), oldest first.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), knownSandboxIdProperty()}}, {QStringLiteral("sandbox_id")});
    d.outputSchema = schema::result({{QStringLiteral("checkpoints"), schema::arrayOf(schema::typed(QStringLiteral("object")))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Listing checkpoints…");
    d.presentation.invoked = QStringLiteral("Listed checkpoints");
    return d;
}

void runCheckpoint(CheckpointService &checkpoints, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId, label;
    bool endRunning = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64)
        || !args.string(QStringLiteral("label"), label, CheckpointService::kMaxLabelChars * 4, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false))
        return call.responder.error(args.error());
    label = label.simplified();
    const ToolResponder responder = call.responder;
    checkpoints.create(
        sandboxId, label, endRunning,
        [responder, &checkpoints, wait = config.sandboxAnswerWithinMs](const Checkpoint &c) {
            // A save of a large disk takes minutes: the agent hears of it in time, then polls.
            QTimer::singleShot(wait, &checkpoints, [responder, c] {
                QJsonObject o = checkpointJson(c);
                o.insert(QStringLiteral("message"), QStringLiteral("still saving: call sandbox_checkpoints to see when it is ready"));
                responder.ok(o);
            });
        },
        [responder](const CheckpointService::Outcome &o) {
            if (!o.ok)
                return responder.error(QStringLiteral("no checkpoint was made: %1").arg(o.error));
            QJsonObject out = checkpointJson(o.checkpoint);
            out.insert(QStringLiteral("not_kept"), QJsonArray::fromStringList(o.notes));
            out.insert(QStringLiteral("message"), QStringLiteral("checkpoint %1 is ready; the sandbox starts again at its next tool call")
                                                      .arg(o.checkpoint.id));
            responder.ok(out);
        });
}

void runList(CheckpointService &checkpoints, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64))
        return call.responder.error(args.error());
    QJsonArray list;
    for (const Checkpoint &c : checkpoints.list(sandboxId))
        list.append(checkpointJson(c));
    call.responder.ok({{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("checkpoints"), list}});
}

} // namespace

void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config)
{
    registry.add(checkpointDefinition(), [&checkpoints, &config](const ToolCall &call) { runCheckpoint(checkpoints, config, call); });
    registry.add(listDefinition(), [&checkpoints](const ToolCall &call) { runList(checkpoints, call); });
}

} // namespace chat2sbx
