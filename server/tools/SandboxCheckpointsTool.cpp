#include "tools/CheckpointTools.h"

#include "core/Clock.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/present/CheckpointJson.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/CheckpointToolSupport.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

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

QJsonObject restoringJson(const CheckpointRepository::PendingRestore &p)
{
    return {{QStringLiteral("checkpoint_id"), p.checkpointId},
            {QStringLiteral("undo_checkpoint_id"), p.undoCheckpointId},
            {QStringLiteral("started_at"), isoTime(p.startedAt)}};
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

void addSandboxCheckpointsTool(ToolRegistry &registry, CheckpointService &checkpoints)
{
    registry.add(checkpointsListDefinition(), [&checkpoints](const ToolCall &call) { runCheckpointsList(checkpoints, call); });
}

} // namespace chat2sbx
