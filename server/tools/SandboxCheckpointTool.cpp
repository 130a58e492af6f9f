#include "tools/CheckpointTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/present/CheckpointJson.h"
#include "tools/CheckpointToolSupport.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

ToolDefinition checkpointDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_checkpoint");
    d.title = QStringLiteral("Checkpoint a sandbox");
    d.description = QStringLiteral(
        "Use before something risky (a migration, an upgrade): saves the sandbox as it is now — its installed packages, HOME "
        "and the rest of its disk, a scratch workspace, and in clone mode the clone's commits, branches, staged, unstaged "
        "and untracked files — under a checkpoint_id. A sandbox here stops while it is saved (commands end); one in the cloud "
        "runs on, and keep_memory keeps its memory and processes. Not kept: a direct-mode folder, "
        "Docker images unless named in docker_images. Long saves answer with state saving: "
        "sandbox_checkpoints shows when it is ready.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("label"), schema::str(QStringLiteral("A few words to recognise it by"), kMaxCheckpointLabelChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("true: commands still running in the sandbox may end (default false: refused)"))},
         {QStringLiteral("pin"), schema::boolean(QStringLiteral("true: never evicted by the checkpoint budget (default false)"))},
         {QStringLiteral("vm_only"),
          schema::boolean(QStringLiteral("A direct-mode sandbox (the user's own folder): true checkpoints only the VM's side; "
                                         "refused otherwise"))},
         {QStringLiteral("keep_memory"),
          schema::boolean(QStringLiteral("A sandbox in Docker's cloud: true keeps its memory and running processes too (a restore or "
                                         "fork resumes them; slower to save and load). Refused for a sandbox on this computer"))},
         {QStringLiteral("docker_images"),
          dockerImagesProperty(QStringLiteral("Images of the sandbox's own Docker to keep too (docker save into the checkpoint, "
                                              "docker load on restore and fork); the others are not kept"))}},
        {QStringLiteral("sandbox_id")});
    d.outputSchema = schema::result({{QStringLiteral("checkpoint_id"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("state"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("kept"), schema::arrayOf(schema::typed(QStringLiteral("string")))},
                                     {QStringLiteral("not_kept"), schema::arrayOf(schema::typed(QStringLiteral("string")))},
                                     {QStringLiteral("evicted"), schema::arrayOf(schema::typed(QStringLiteral("object")))},
                                     {QStringLiteral("over_budget"),
                                      schema::str(QStringLiteral("Pinned checkpoints keep the total past the budget: how, and what to do"))}});
    // It stops the sandbox (running commands may end): not a harmless addition.
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Saving a checkpoint of the sandbox…");
    d.presentation.invoked = QStringLiteral("Saved a checkpoint of the sandbox");
    d.presentation.cardView = ToolCardView::Checkpoint;
    return d;
}

void runCheckpoint(CheckpointService &checkpoints, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId, label;
    bool endRunning = false, pin = false, vmOnly = false, keepMemory = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64)
        || !args.string(QStringLiteral("label"), label, kMaxCheckpointLabelChars * 4, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false)
        || !args.boolean(QStringLiteral("pin"), pin, false) || !args.boolean(QStringLiteral("vm_only"), vmOnly, false)
        || !args.boolean(QStringLiteral("keep_memory"), keepMemory, false))
        return call.responder.error(args.error());
    CheckpointRequest request;
    request.sandboxId = sandboxId;
    request.label = label.simplified();
    request.running = endRunning ? RunningCommands::MayEnd : RunningCommands::Refuse;
    request.scope = vmOnly ? CheckpointScope::VmOnly : CheckpointScope::Everything;
    request.dockerImages = dockerImagesOf(call);
    request.keepMemory = keepMemory;
    const ToolResponder responder = call.responder;
    checkpoints.create(
        request,
        [responder, &checkpoints, &config](const Checkpoint &c) {
            QJsonObject o = checkpointJson(c);
            o.insert(QStringLiteral("message"), QStringLiteral("still saving: call sandbox_checkpoints to see when it is ready"));
            answerStillRunningAfter(config, checkpoints, responder, o);
        },
        [responder, &checkpoints, &config, pin](const CheckpointOutcome &o) {
            if (!o.ok)
                return responder.error(QStringLiteral("no checkpoint was made: %1").arg(o.error));
            Checkpoint made = o.checkpoint;
            QString pinError;
            if (pin && checkpoints.setPinned(made.id, true, pinError))
                made.pinned = true;
            QJsonObject out = checkpointJson(made);
            out.insert(QStringLiteral("kept"), QJsonArray::fromStringList(o.kept));
            out.insert(QStringLiteral("not_kept"), QJsonArray::fromStringList(o.notes));
            QString message = made.inCloud
                                  ? QStringLiteral("checkpoint %1 is ready in Docker's cloud%2; the sandbox ran on meanwhile")
                                        .arg(made.id, made.keepsMemory ? QStringLiteral(", with its memory and processes") : QString())
                                  : QStringLiteral("checkpoint %1 is ready; the sandbox starts again at its next tool call").arg(made.id);
            if (!o.evicted.isEmpty()) {
                QJsonArray evicted;
                QStringList ids;
                for (const Checkpoint &e : o.evicted) {
                    evicted.append(checkpointJson(e));
                    ids << e.id;
                }
                out.insert(QStringLiteral("evicted"), evicted);
                message += made.inCloud
                               ? QStringLiteral(". The cloud checkpoint budget (cloudCheckpointMaxCount %1, cloudCheckpointMaxGiB %2) "
                                                "removed the oldest: %3")
                                     .arg(config.cloudCheckpointMaxCount).arg(config.cloudCheckpointMaxGiB).arg(ids.join(QStringLiteral(", ")))
                               : QStringLiteral(". The checkpoint budget (checkpointMaxCount %1, checkpointMaxGiB %2) removed the oldest: %3")
                                     .arg(config.checkpointMaxCount).arg(config.checkpointMaxGiB).arg(ids.join(QStringLiteral(", ")));
            }
            if (pin && !made.pinned)
                message += QStringLiteral(". It could not be pinned: %1").arg(pinError);
            if (!o.overBudget.isEmpty()) {
                out.insert(QStringLiteral("over_budget"), o.overBudget);
                message += QStringLiteral(". ") + o.overBudget;
            }
            out.insert(QStringLiteral("message"), message);
            responder.ok(out);
        });
}


} // namespace

void addSandboxCheckpointTool(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config)
{
    registry.add(checkpointDefinition(), [&checkpoints, &config](const ToolCall &call) { runCheckpoint(checkpoints, config, call); });
}

} // namespace chat2sbx
