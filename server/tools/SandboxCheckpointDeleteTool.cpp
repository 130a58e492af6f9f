#include "tools/CheckpointTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {
namespace {

ToolDefinition deleteDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_checkpoint_delete");
    d.title = QStringLiteral("Delete a checkpoint");
    d.description = QStringLiteral("Use when a checkpoint is no longer needed: its saved disk and workspace copy are removed for "
                                   "good. The sandbox itself is not touched.");
    d.inputSchema = schema::object(
        {{QStringLiteral("checkpoint_id"), schema::str(QStringLiteral("The checkpoint to delete (sandbox_checkpoints)"), 64)}},
        {QStringLiteral("checkpoint_id")});
    d.outputSchema = schema::result({{QStringLiteral("checkpoint_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("deleted"), schema::typed(QStringLiteral("boolean"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Deleting the checkpoint…");
    d.presentation.invoked = QStringLiteral("Deleted the checkpoint");
    return d;
}

void runDelete(CheckpointService &checkpoints, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString checkpointId;
    if (!args.string(QStringLiteral("checkpoint_id"), checkpointId, 64))
        return call.responder.error(args.error());
    const ToolResponder responder = call.responder;
    checkpoints.remove(checkpointId, [responder, checkpointId](bool ok, const QString &error) {
        if (!ok)
            return responder.error(QStringLiteral("checkpoint %1 was not deleted: %2").arg(checkpointId, error));
        responder.ok({{QStringLiteral("checkpoint_id"), checkpointId}, {QStringLiteral("deleted"), true}});
    });
}

} // namespace

void addSandboxCheckpointDeleteTool(ToolRegistry &registry, CheckpointService &checkpoints)
{
    registry.add(deleteDefinition(), [&checkpoints](const ToolCall &call) { runDelete(checkpoints, call); });
}

} // namespace chat2sbx
