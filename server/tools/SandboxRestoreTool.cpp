#include "tools/CheckpointTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "tools/CheckpointToolSupport.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

ToolDefinition restoreDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_restore");
    d.title = QStringLiteral("Restore a sandbox to a checkpoint");
    d.description = QStringLiteral(
        "Use to go back after something went wrong: the same sandbox_id returns to one of its checkpoints — the disk "
        "(installed packages, HOME) and a scratch workspace or a clone's git state as they were. What is there now is "
        "checkpointed first "
        "(undo_checkpoint_id), so a restore can be undone. The sandbox stops (running commands end) and starts afresh at "
        "its next tool call. Not brought back: memory, processes, the sandbox's Docker images; a direct-mode folder is the "
        "user's own and is left as it is. A long restore answers with state restoring: sandbox_checkpoints shows when it is "
        "done.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("checkpoint_id"), schema::str(QStringLiteral("One of the sandbox's checkpoints (sandbox_checkpoints)"), 64)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("true: commands still running in the sandbox may end (default false: refused)"))}},
        {QStringLiteral("sandbox_id"), QStringLiteral("checkpoint_id")});
    d.outputSchema = schema::result({{QStringLiteral("checkpoint_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("undo_checkpoint_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("state"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("restored"), schema::arrayOf(schema::typed(QStringLiteral("string")))},
                                     {QStringLiteral("not_restored"), schema::arrayOf(schema::typed(QStringLiteral("string")))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Restoring the sandbox…");
    d.presentation.invoked = QStringLiteral("Restored the sandbox");
    d.presentation.cardView = ToolCardView::Checkpoint;
    return d;
}

void runRestore(CheckpointService &checkpoints, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId, checkpointId;
    bool endRunning = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64) || !args.string(QStringLiteral("checkpoint_id"), checkpointId, 64)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false))
        return call.responder.error(args.error());
    const ToolResponder responder = call.responder;
    RestoreRequest request;
    request.sandboxId = sandboxId;
    request.checkpointId = checkpointId;
    request.running = endRunning ? RunningCommands::MayEnd : RunningCommands::Refuse;
    checkpoints.restore(
        request,
        [responder, &checkpoints, &config, sandboxId, checkpointId](const Checkpoint &undo) {
            answerStillRunningAfter(config, checkpoints, responder,
                                    {{QStringLiteral("sandbox_id"), sandboxId},
                                     {QStringLiteral("checkpoint_id"), checkpointId},
                                     {QStringLiteral("undo_checkpoint_id"), undo.id},
                                     {QStringLiteral("state"), QStringLiteral("restoring")},
                                     {QStringLiteral("message"), QStringLiteral("still restoring: sandbox_checkpoints shows when it is done")}});
        },
        [responder, sandboxId](const RestoreOutcome &o) {
            if (!o.ok)
                return responder.error(o.error);
            responder.ok({{QStringLiteral("sandbox_id"), sandboxId},
                          {QStringLiteral("checkpoint_id"), o.restored.id},
                          {QStringLiteral("undo_checkpoint_id"), o.undo.id},
                          {QStringLiteral("state"), QStringLiteral("restored")},
                          {QStringLiteral("took_ms"), static_cast<double>(o.tookMs)},
                          {QStringLiteral("restored"), QJsonArray::fromStringList(o.broughtBack)},
                          {QStringLiteral("not_restored"), QJsonArray::fromStringList(o.notes)},
                          {QStringLiteral("message"),
                           QStringLiteral("sandbox %1 is back at checkpoint %2 and starts at its next tool call; undo with "
                                          "sandbox_restore checkpoint_id %3")
                               .arg(sandboxId, o.restored.id, o.undo.id)}});
        });
}

} // namespace

void addSandboxRestoreTool(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config)
{
    registry.add(restoreDefinition(), [&checkpoints, &config](const ToolCall &call) { runRestore(checkpoints, config, call); });
}

} // namespace chat2sbx
