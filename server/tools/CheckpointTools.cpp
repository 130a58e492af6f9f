#include "tools/CheckpointTools.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointForker.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/changes/DockerImageKeeper.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/present/CheckpointJson.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QTimer>

namespace chat2sbx {
namespace {

QJsonObject dockerImagesProperty(const QString &what)
{
    QJsonObject images = schema::arrayOf(schema::str(QStringLiteral("an image reference, e.g. myapp:dev"), 300), what);
    images.insert(QStringLiteral("maxItems"), DockerImageKeeper::kMaxImages);
    return images;
}

QStringList dockerImagesOf(const ToolCall &call)
{
    QStringList images;
    for (const QJsonValue &v : call.arguments.value(QStringLiteral("docker_images")).toArray())
        images << v.toString().trimmed();
    return images;
}

ToolDefinition checkpointDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_checkpoint");
    d.title = QStringLiteral("Checkpoint a sandbox");
    d.description = QStringLiteral(
        "Use before something risky (a migration, an upgrade): saves the sandbox as it is now — its installed packages, HOME "
        "and the rest of its disk, a scratch workspace, and in clone mode the clone's commits, branches, staged, unstaged "
        "and untracked files — under a checkpoint_id. The sandbox stops while it is saved "
        "(running commands end; the next tool call starts it again). Not kept: memory, processes, a direct-mode folder "
        "(the user's own), the sandbox's Docker images unless named in docker_images. Long saves answer with state saving: "
        "sandbox_checkpoints shows when it is ready.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("label"), schema::str(QStringLiteral("A few words to recognise it by"), CheckpointService::kMaxLabelChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("true: commands still running in the sandbox may end (default false: refused)"))},
         {QStringLiteral("pin"), schema::boolean(QStringLiteral("true: never evicted by the checkpoint budget (default false)"))},
         {QStringLiteral("vm_only"),
          schema::boolean(QStringLiteral("A direct-mode sandbox (the user's own folder): true checkpoints only the VM's side; "
                                         "refused otherwise"))},
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

ToolDefinition checkpointsListDefinition()
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
    d.presentation.cardView = ToolCardView::Checkpoint;
    return d;
}

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

QJsonObject restoringJson(const CheckpointRepository::PendingRestore &p)
{
    return {{QStringLiteral("checkpoint_id"), p.checkpointId},
            {QStringLiteral("undo_checkpoint_id"), p.undoCheckpointId},
            {QStringLiteral("started_at"), isoTime(p.startedAt)}};
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
    checkpoints.restore(
        sandboxId, checkpointId, endRunning,
        [responder, &checkpoints, sandboxId, checkpointId, wait = config.sandboxAnswerWithinMs](const Checkpoint &undo) {
            // Saving the present, replacing the workspace and a new VM take minutes on a large disk.
            QTimer::singleShot(wait, &checkpoints, [responder, sandboxId, checkpointId, undo] {
                responder.ok({{QStringLiteral("sandbox_id"), sandboxId},
                              {QStringLiteral("checkpoint_id"), checkpointId},
                              {QStringLiteral("undo_checkpoint_id"), undo.id},
                              {QStringLiteral("state"), QStringLiteral("restoring")},
                              {QStringLiteral("message"), QStringLiteral("still restoring: sandbox_checkpoints shows when it is done")}});
            });
        },
        [responder, sandboxId](const CheckpointService::RestoreOutcome &o) {
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

ToolDefinition forkDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_fork");
    d.title = QStringLiteral("Fork a sandbox");
    d.description = QStringLiteral(
        "Use to try two approaches side by side: a new sandbox (its own sandbox_id, workspace copy and VM) made from a "
        "checkpoint — give checkpoint_id, or sandbox_id to checkpoint that sandbox now and fork it. Forks count against the "
        "limit of active sandboxes and show their parent. Not copied: memory, processes, the sandbox's Docker images. A "
        "sandbox on the user's own folder (direct mode) cannot be forked. A clone-mode fork is a clone of the same repository "
        "with the checkpoint's commits and changes; its work comes home on its own branch chat2sbx/<fork sandbox_id>.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("checkpoint_id"), schema::str(QStringLiteral("A ready checkpoint (sandbox_checkpoints)"), 64)},
         {QStringLiteral("name"), schema::str(QStringLiteral("A few words to tell the fork apart"), CheckpointForker::kMaxNameChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("With sandbox_id: commands still running there may end (default false: refused)"))},
         {QStringLiteral("docker_images"),
          dockerImagesProperty(QStringLiteral("With sandbox_id: images of its own Docker the fork gets too"))}},
        {});
    d.outputSchema = sandboxSummarySchema({{QStringLiteral("not_copied"), schema::arrayOf(schema::typed(QStringLiteral("string")))}});
    // Given a sandbox_id, it checkpoints that sandbox first, which stops it (as sandbox_checkpoint does).
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Forking the sandbox…");
    d.presentation.invoked = QStringLiteral("Forked the sandbox");
    d.presentation.cardView = ToolCardView::Sandbox;
    return d;
}

QJsonObject forkedFromJson(const QString &sandboxId, const QString &checkpointId, const QString &name)
{
    QJsonObject o{{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("checkpoint_id"), checkpointId}};
    if (!name.isEmpty())
        o.insert(QStringLiteral("name"), name);
    return o;
}

void runFork(CheckpointService &checkpoints, SandboxService &sandboxes, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId, checkpointId, name;
    bool endRunning = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("checkpoint_id"), checkpointId, 64, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("name"), name, CheckpointForker::kMaxNameChars * 4, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false))
        return call.responder.error(args.error());
    const QStringList images = dockerImagesOf(call);
    if (!images.isEmpty() && sandboxId.isEmpty())
        return call.responder.error(QStringLiteral("docker_images goes with sandbox_id: a checkpoint keeps the images it was made with"));
    const ToolResponder responder = call.responder;
    checkpoints.forker().fork(
        sandboxId, checkpointId, name, endRunning,
        [responder, &checkpoints, wait = config.sandboxAnswerWithinMs](const Checkpoint &from) {
            QTimer::singleShot(wait, &checkpoints, [responder, from] {
                responder.ok({{QStringLiteral("state"), QStringLiteral("forking")},
                              {QStringLiteral("forked_from"), forkedFromJson(from.sandboxId, from.id, QString())},
                              {QStringLiteral("message"), QStringLiteral("still forking: sandbox_list shows the new sandbox once it is made")}});
            });
        },
        [responder, &sandboxes, name](const CheckpointForker::Outcome &o) {
            if (!o.ok)
                return responder.error(o.error);
            QJsonObject out = sandboxJson(o.view, sandboxes);
            out.insert(QStringLiteral("forked_from"), forkedFromJson(o.checkpoint.sandboxId, o.checkpoint.id, name.simplified()));
            out.insert(QStringLiteral("took_ms"), static_cast<double>(o.tookMs));
            out.insert(QStringLiteral("not_copied"), QJsonArray::fromStringList(o.notes));
            out.insert(QStringLiteral("message"),
                       QStringLiteral("sandbox %1 is a fork of %2 at checkpoint %3%4")
                           .arg(o.view.record.id, o.checkpoint.sandboxId, o.checkpoint.id,
                                o.checkpointMade ? QStringLiteral(" (taken for this fork)") : QString()));
            responder.ok(out);
        },
        images);
}

void runCheckpoint(CheckpointService &checkpoints, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId, label;
    bool endRunning = false, pin = false, vmOnly = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64)
        || !args.string(QStringLiteral("label"), label, CheckpointService::kMaxLabelChars * 4, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false)
        || !args.boolean(QStringLiteral("pin"), pin, false) || !args.boolean(QStringLiteral("vm_only"), vmOnly, false))
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
        [responder, &checkpoints, &config, pin](const CheckpointService::Outcome &o) {
            if (!o.ok)
                return responder.error(QStringLiteral("no checkpoint was made: %1").arg(o.error));
            Checkpoint made = o.checkpoint;
            QString pinError;
            if (pin && checkpoints.setPinned(made.id, true, pinError))
                made.pinned = true;
            QJsonObject out = checkpointJson(made);
            out.insert(QStringLiteral("kept"), QJsonArray::fromStringList(o.kept));
            out.insert(QStringLiteral("not_kept"), QJsonArray::fromStringList(o.notes));
            QString message = QStringLiteral("checkpoint %1 is ready; the sandbox starts again at its next tool call").arg(made.id);
            if (!o.evicted.isEmpty()) {
                QJsonArray evicted;
                QStringList ids;
                for (const Checkpoint &e : o.evicted) {
                    evicted.append(checkpointJson(e));
                    ids << e.id;
                }
                out.insert(QStringLiteral("evicted"), evicted);
                message += QStringLiteral(". The checkpoint budget (checkpointMaxCount %1, checkpointMaxGiB %2) removed the oldest: %3")
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
        },
        vmOnly, dockerImagesOf(call));
}

void runCheckpointsList(CheckpointService &checkpoints, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString sandboxId;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64))
        return call.responder.error(args.error());
    QJsonArray list;
    for (const Checkpoint &c : checkpoints.list(sandboxId))
        list.append(checkpointJson(c));
    QJsonObject out{{QStringLiteral("sandbox_id"), sandboxId}, {QStringLiteral("checkpoints"), list}};
    if (const auto restoring = checkpoints.pendingRestore(sandboxId))
        out.insert(QStringLiteral("restoring"), restoringJson(*restoring));
    call.responder.ok(out);
}

} // namespace

void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes,
                             const Config &config)
{
    registry.add(checkpointDefinition(), [&checkpoints, &config](const ToolCall &call) { runCheckpoint(checkpoints, config, call); });
    registry.add(checkpointsListDefinition(), [&checkpoints](const ToolCall &call) { runCheckpointsList(checkpoints, call); });
    registry.add(restoreDefinition(), [&checkpoints, &config](const ToolCall &call) { runRestore(checkpoints, config, call); });
    registry.add(deleteDefinition(), [&checkpoints](const ToolCall &call) { runDelete(checkpoints, call); });
    registry.add(forkDefinition(), [&checkpoints, &sandboxes, &config](const ToolCall &call) {
        runFork(checkpoints, sandboxes, config, call);
    });
}

} // namespace chat2sbx
