#include "tools/CheckpointTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "tools/CheckpointToolSupport.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

ToolDefinition forkDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_fork");
    d.title = QStringLiteral("Fork a sandbox");
    d.description = QStringLiteral(
        "Use to try two approaches side by side: a new sandbox (its own sandbox_id, workspace copy and VM) made from a "
        "checkpoint — give checkpoint_id, or sandbox_id to checkpoint that sandbox now and fork it. Forks count against the "
        "limit of active sandboxes and show their parent. Not copied: memory and processes (unless a cloud checkpoint kept "
        "them), Docker images. A "
        "sandbox on the user's own folder (direct mode) cannot be forked. A clone-mode fork is a clone of the same repository "
        "with the checkpoint's commits and changes; its work comes home on its own branch chat2sbx/<fork sandbox_id>.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("checkpoint_id"), schema::str(QStringLiteral("A ready checkpoint (sandbox_checkpoints)"), 64)},
         {QStringLiteral("name"), schema::str(QStringLiteral("A few words to tell the fork apart"), kMaxForkNameChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("With sandbox_id: commands still running there may end (default false: refused)"))},
         {QStringLiteral("placement"),
          schema::oneOf({QStringLiteral("local"), QStringLiteral("cloud")},
                        QStringLiteral("Where the fork runs: where its checkpoint is (the default); a checkpoint goes between this "
                                       "computer and the cloud only through sandbox_move"))},
         {QStringLiteral("keep_memory"),
          schema::boolean(QStringLiteral("With sandbox_id of a sandbox in Docker's cloud: its memory and running processes go into "
                                         "the fork too"))},
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
    QString sandboxId, checkpointId, name, placement;
    bool endRunning = false, keepMemory = false;
    if (!args.string(QStringLiteral("sandbox_id"), sandboxId, 64, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("checkpoint_id"), checkpointId, 64, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("name"), name, kMaxForkNameChars * 4, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false)
        || !args.boolean(QStringLiteral("keep_memory"), keepMemory, false)
        || !args.string(QStringLiteral("placement"), placement, 16, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    if (!placement.isEmpty() && placement != QLatin1String("local") && placement != QLatin1String("cloud"))
        return call.responder.error(QStringLiteral("placement must be local or cloud"));
    if (keepMemory && sandboxId.isEmpty())
        return call.responder.error(QStringLiteral("keep_memory goes with sandbox_id: a checkpoint keeps memory or not as it was made"));
    const QStringList images = dockerImagesOf(call);
    if (!images.isEmpty() && sandboxId.isEmpty())
        return call.responder.error(QStringLiteral("docker_images goes with sandbox_id: a checkpoint keeps the images it was made with"));
    const ToolResponder responder = call.responder;
    ForkRequest request;
    request.sandboxId = sandboxId;
    request.checkpointId = checkpointId;
    request.name = name;
    request.running = endRunning ? RunningCommands::MayEnd : RunningCommands::Refuse;
    request.dockerImages = images;
    request.keepMemory = keepMemory;
    request.placement = placement;
    checkpoints.fork(
        request,
        [responder, &checkpoints, &config](const Checkpoint &from) {
            answerStillRunningAfter(config, checkpoints, responder,
                                    {{QStringLiteral("state"), QStringLiteral("forking")},
                                     {QStringLiteral("forked_from"), forkedFromJson(from.sandboxId, from.id, QString())},
                                     {QStringLiteral("message"), QStringLiteral("still forking: sandbox_list shows the new sandbox once it is made")}});
        },
        [responder, &sandboxes, name](const ForkOutcome &o) {
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
        });
}

} // namespace

void addSandboxForkTool(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes, const Config &config)
{
    registry.add(forkDefinition(), [&checkpoints, &sandboxes, &config](const ToolCall &call) {
        runFork(checkpoints, sandboxes, config, call);
    });
}

} // namespace chat2sbx
