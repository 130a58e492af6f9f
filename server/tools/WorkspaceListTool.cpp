#include "tools/WorkspaceTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/ToolArgs.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

ToolDefinition workspaceListDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("workspace_list");
    d.title = QStringLiteral("List workspaces");
    d.description = QStringLiteral(
        "List the workspaces sandboxes can work on: managed ones (owned by chat2sbx, seen as ~/workspace inside "
        "the sandbox) and host directories the user approved (clone: private clone of a host repository; direct: "
        "the host directory itself, read-write). Shows each workspace's running sandbox and, for managed "
        "workspaces without a sandbox, when it will be moved to the trash.");
    d.inputSchema = schema::object({}, {});
    // Closed: workspaceJson (SandboxPresenter) shows agents exactly these fields.
    const QJsonObject item = schema::object(
        {{QStringLiteral("workspace_id"), schema::str(QStringLiteral("ws_ id to pass to sandbox_create"))},
         {QStringLiteral("mode"), schema::oneOf({QStringLiteral("managed"), QStringLiteral("clone"), QStringLiteral("direct")},
                                                QStringLiteral("managed, clone or direct"))},
         {QStringLiteral("display_name"), schema::str(QStringLiteral("human-readable name"))},
         {QStringLiteral("path_in_sandbox"), schema::str(QStringLiteral("where the workspace appears inside a sandbox"))},
         {QStringLiteral("host_path"), schema::str(QStringLiteral("approved host directory (clone and direct only)"))},
         {QStringLiteral("sandbox_id"), schema::nullable(schema::str(QStringLiteral("the sandbox using it now, if any")))},
         {QStringLiteral("retention_deadline"),
          schema::nullable(schema::str(QStringLiteral("managed only: when it moves to the trash if no sandbox uses it (ISO-8601 UTC)")))},
         {QStringLiteral("last_used_at"), schema::str(QStringLiteral("ISO-8601 UTC"))}},
        {QStringLiteral("workspace_id"), QStringLiteral("mode"), QStringLiteral("display_name"), QStringLiteral("sandbox_id")});
    d.outputSchema = schema::object({{QStringLiteral("workspaces"), schema::arrayOf(item)}}, {QStringLiteral("workspaces")});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Listing the workspaces…");
    d.presentation.invoked = QStringLiteral("Listed the workspaces");
    return d;
}

void runWorkspaceList(const ToolCall &call, WorkspaceService &workspaces)
{
    QJsonArray items;
    for (const WorkspaceOverview &o : workspaces.overview())
        items.append(workspaceJson(o));
    call.responder.ok(QJsonObject{{QStringLiteral("workspaces"), items}});
}

} // namespace

void addWorkspaceListTool(ToolRegistry &registry, WorkspaceService &workspaces)
{
    registry.add(workspaceListDefinition(),
                 [&workspaces](const ToolCall &call) { runWorkspaceList(call, workspaces); });
}

} // namespace chat2sbx
