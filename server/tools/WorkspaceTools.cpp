#include "tools/WorkspaceTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/SandboxPresenter.h"
#include "workspace/ApprovalService.h"
#include "workspace/PathPolicy.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QJsonObject>

namespace chat2sbx {
namespace {

QJsonObject str(const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
}

QJsonObject nullableStr(const QString &description)
{
    return {{QStringLiteral("type"), QJsonArray{QStringLiteral("string"), QStringLiteral("null")}},
            {QStringLiteral("description"), description}};
}

QJsonObject enumOf(const QStringList &values, const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("enum"), QJsonArray::fromStringList(values)},
            {QStringLiteral("description"), description}};
}

ToolDefinition listDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("workspace_list");
    d.title = QStringLiteral("List workspaces");
    d.description = QStringLiteral(
        "List the workspaces sandboxes can work on: managed ones (owned by chat2sbx, seen as ~/workspace inside "
        "the sandbox) and host directories the user approved (clone: private clone of a host repository; direct: "
        "the host directory itself, read-write). Shows each workspace's running sandbox and, for managed "
        "workspaces without a sandbox, when it will be moved to the trash.");
    d.inputSchema = QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                                {QStringLiteral("properties"), QJsonObject{}},
                                {QStringLiteral("additionalProperties"), false}};
    const QJsonObject item{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"), QJsonObject{
             {QStringLiteral("workspace_id"), str(QStringLiteral("ws_ id to pass to sandbox_create"))},
             {QStringLiteral("mode"), enumOf({QStringLiteral("managed"), QStringLiteral("clone"), QStringLiteral("direct")},
                                             QStringLiteral("managed, clone or direct"))},
             {QStringLiteral("display_name"), str(QStringLiteral("human-readable name"))},
             {QStringLiteral("path_in_sandbox"), str(QStringLiteral("where the workspace appears inside a sandbox"))},
             {QStringLiteral("host_path"), str(QStringLiteral("approved host directory (clone and direct only)"))},
             {QStringLiteral("sandbox_id"), nullableStr(QStringLiteral("the sandbox using it now, if any"))},
             {QStringLiteral("retention_deadline"),
              nullableStr(QStringLiteral("managed only: when it moves to the trash if no sandbox uses it (ISO-8601 UTC)"))},
             {QStringLiteral("last_used_at"), str(QStringLiteral("ISO-8601 UTC"))},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("workspace_id"), QStringLiteral("mode"),
                                                QStringLiteral("display_name"), QStringLiteral("sandbox_id")}},
        {QStringLiteral("additionalProperties"), false},
    };
    d.outputSchema = QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"), QJsonObject{{QStringLiteral("workspaces"),
                                                    QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                                {QStringLiteral("items"), item}}}}},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("workspaces")}},
        {QStringLiteral("additionalProperties"), false},
    };
    d.annotations = ToolAnnotations{true, false, true, false};
    return d;
}

ToolDefinition requestDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("workspace_request");
    d.title = QStringLiteral("Request a host workspace");
    d.description = QStringLiteral(
        "Ask the local user for a host directory. Returns approval_required with an approval_id until the user "
        "approves it; call again with the same arguments to learn the outcome, then pass the workspace_id to "
        "sandbox_create. mode clone (default): a private git clone of the committed work of a repository's top "
        "folder (uncommitted and untracked files stay on the host; no linked worktrees). mode direct: the folder "
        "is mounted read-write, so commands change the host files. Give a short reason: the user sees it.");
    d.inputSchema = QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"), QJsonObject{
             {QStringLiteral("host_path"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                       {QStringLiteral("minLength"), 1},
                                                       {QStringLiteral("maxLength"), PathPolicy::kMaxPathBytes},
                                                       {QStringLiteral("description"),
                                                        QStringLiteral("absolute path of the host directory")}}},
             {QStringLiteral("mode"), enumOf({QStringLiteral("clone"), QStringLiteral("direct")},
                                             QStringLiteral("clone (default): private clone of a git repository; "
                                                            "direct: the directory itself, read-write"))},
             {QStringLiteral("reason"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                    {QStringLiteral("maxLength"), 500},
                                                    {QStringLiteral("description"),
                                                     QStringLiteral("why you need this folder, shown to the user (at most 500 characters)")}}},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("host_path")}},
        {QStringLiteral("additionalProperties"), false},
    };
    d.outputSchema = QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"), QJsonObject{
             {QStringLiteral("status"), enumOf({QStringLiteral("approval_required"), QStringLiteral("approved"), QStringLiteral("rejected")},
                                               QStringLiteral("where the request stands"))},
             {QStringLiteral("approval_id"), str(QStringLiteral("apr_ id of the pending (or rejected) approval"))},
             {QStringLiteral("canonical_path"), str(QStringLiteral("the directory after resolving symbolic links"))},
             {QStringLiteral("mode"), enumOf({QStringLiteral("clone"), QStringLiteral("direct")}, QStringLiteral("requested mode"))},
             {QStringLiteral("how_to_approve"), str(QStringLiteral("what to tell the user"))},
             {QStringLiteral("workspace_id"), str(QStringLiteral("approved: the ws_ id for sandbox_create"))},
             {QStringLiteral("message"), str(QStringLiteral("rejected: what to tell the user"))},
             {QStringLiteral("clone_note"), str(QStringLiteral("clone mode: what the clone holds"))},
         }},
        {QStringLiteral("required"), QJsonArray{QStringLiteral("status"), QStringLiteral("canonical_path"), QStringLiteral("mode")}},
        {QStringLiteral("additionalProperties"), false},
    };
    d.annotations = ToolAnnotations{false, false, true, false};
    return d;
}

void handleList(const ToolCall &call, WorkspaceService &workspaces, ApprovalService &approvals)
{
    approvals.checkForExternalChanges();
    QJsonArray items;
    for (const WorkspaceOverview &o : workspaces.overview())
        items.append(workspaceJson(o));
    call.responder.ok(QJsonObject{{QStringLiteral("workspaces"), items}});
}

void handleRequest(const ToolCall &call, WorkspaceService &workspaces, ApprovalService &approvals)
{
    approvals.checkForExternalChanges();
    const QJsonValue pathValue = call.arguments.value(QStringLiteral("host_path"));
    const QJsonValue modeValue = call.arguments.value(QStringLiteral("mode"));
    if (!pathValue.isString())
        return call.responder.error(QStringLiteral("host_path must be a string"));
    const QString path = pathValue.toString();
    if (path.size() > PathPolicy::kMaxPathBytes)
        return call.responder.error(QStringLiteral("host_path is too long (at most %1 bytes)").arg(PathPolicy::kMaxPathBytes));
    WorkspaceMode mode = WorkspaceMode::Clone;
    if (!modeValue.isUndefined() && !modeValue.isNull()) {
        if (!modeValue.isString() || !parseWorkspaceMode(modeValue.toString(), mode) || mode == WorkspaceMode::Managed)
            return call.responder.error(QStringLiteral("mode must be clone or direct"));
    }

    const QJsonValue reasonValue = call.arguments.value(QStringLiteral("reason"));
    if (!reasonValue.isUndefined() && !reasonValue.isNull() && !reasonValue.isString())
        return call.responder.error(QStringLiteral("reason must be a string"));
    // One line, no control characters: it is shown in the tray, a notification and the CLI.
    QString reason = reasonValue.toString().simplified();
    reason.remove(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]")));
    if (reason.size() > 500)
        return call.responder.error(QStringLiteral("reason is too long (%1 characters; at most 500)").arg(reason.size()));

    const ApprovalService::RequestOutcome out = approvals.request(path, mode, reason, call.clientName.left(100));
    using Status = ApprovalService::RequestOutcome::Status;
    QJsonObject result{
        {QStringLiteral("canonical_path"), out.canonicalPath},
        {QStringLiteral("mode"), workspaceModeName(mode)},
    };
    if (mode == WorkspaceMode::Clone)
        result.insert(QStringLiteral("clone_note"),
                      QStringLiteral("only committed work is cloned: the sandbox gets a git clone of the commit checked out "
                                     "when it is created; uncommitted, untracked and ignored files stay on the host"));
    switch (out.status) {
    case Status::Refused:
        // Results never show where chat2sbx keeps its data, even when a request echoes such a path.
        return call.responder.error(redactDataPaths(QStringLiteral("host path refused: %1").arg(out.reason), workspaces.config()));
    case Status::Approved:
        result.insert(QStringLiteral("status"), QStringLiteral("approved"));
        result.insert(QStringLiteral("workspace_id"), out.workspaceId);
        break;
    case Status::Rejected:
        result.insert(QStringLiteral("status"), QStringLiteral("rejected"));
        result.insert(QStringLiteral("approval_id"), out.approval.id);
        result.insert(QStringLiteral("message"),
                      QStringLiteral("the user rejected access to this directory; do not ask again unless the user says so "
                                     "(they can still register it with `chat2sbx workspace add`)"));
        break;
    case Status::ApprovalRequired:
        result.insert(QStringLiteral("status"), QStringLiteral("approval_required"));
        result.insert(QStringLiteral("approval_id"), out.approval.id);
        result.insert(QStringLiteral("how_to_approve"),
                      QStringLiteral("ask the user to approve it in the chat2sbx tray or with `chat2sbx approval approve %1`")
                          .arg(out.approval.id));
        break;
    }
    call.responder.ok(result);
}

} // namespace

void registerWorkspaceTools(ToolRegistry &registry, WorkspaceService &workspaces, ApprovalService &approvals)
{
    registry.add(listDefinition(), [&workspaces, &approvals](const ToolCall &call) { handleList(call, workspaces, approvals); });
    registry.add(requestDefinition(), [&workspaces, &approvals](const ToolCall &call) { handleRequest(call, workspaces, approvals); });
}

} // namespace chat2sbx
