#include "tools/ChangesTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/ChangesService.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

ToolDefinition exportChangesDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("export_changes");
    d.title = QStringLiteral("Export changes to the host repository");
    d.description = QStringLiteral(
        "Use this in a clone-mode sandbox to hand your work to the user: your commits since the sandbox started, plus one "
        "commit holding any uncommitted changes, become the branch chat2sbx/<sandbox_id> in the user's repository on their "
        "computer. Their checkout, current branch and other branches are not touched. Repeating it updates the branch. "
        "Managed workspaces have no host repository; direct-mode changes are already on the host.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}}, {QStringLiteral("sandbox_id")});
    d.outputSchema = schema::result({{QStringLiteral("branch"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("commits"), schema::typed(QStringLiteral("array"))},
                                     {QStringLiteral("command"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Exporting the work to a host branch…");
    d.presentation.invoked = QStringLiteral("Exported the work to a host branch");
    d.presentation.cardView = ToolCardView::Export;
    return d;
}

void runExportChanges(ChangesService &service, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id;
    if (!args.sandboxId(id))
        return call.responder.error(args.error());
    service.exportWork(id, {}, [responder = call.responder, id](const ChangesService::ExportOutcome &o) {
        if (!o.ok)
            return responder.error(QStringLiteral("cannot export the work of %1: %2").arg(id, o.error));
        if (o.nothing)
            return responder.ok({{QStringLiteral("sandbox_id"), id},
                                 {QStringLiteral("exported"), false},
                                 {QStringLiteral("message"), QStringLiteral("nothing to export: no commit and no change since the "
                                                                            "sandbox started")}});
        QJsonArray commits;
        for (const auto &c : o.commits)
            commits.append(QJsonObject{{QStringLiteral("id"), c.first}, {QStringLiteral("subject"), c.second}});
        responder.ok({{QStringLiteral("sandbox_id"), id},
                      {QStringLiteral("exported"), true},
                      {QStringLiteral("branch"), o.branch},
                      {QStringLiteral("host_repository"), o.repository},
                      {QStringLiteral("commit"), o.tip},
                      {QStringLiteral("commits"), commits},
                      {QStringLiteral("includes_uncommitted_changes"), o.uncommitted},
                      {QStringLiteral("command"), o.command},
                      {QStringLiteral("message"),
                       QStringLiteral("The work is on branch %1 in the user's repository %2 (their checkout was not touched). "
                                      "They can look at it with `%3` and merge it when they like.")
                           .arg(o.branch, o.repository, o.command)}});
    });
}

} // namespace

void addExportChangesTool(ToolRegistry &registry, ChangesService &changes)
{
    registry.add(exportChangesDefinition(), [&changes](const ToolCall &call) { runExportChanges(changes, call); });
}

} // namespace chat2sbx
