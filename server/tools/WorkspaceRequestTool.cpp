#include "tools/WorkspaceTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/ToolArgs.h"
#include "workspace/ApprovalService.h"
#include "workspace/PathPolicy.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kMaxWorkspaceReasonChars = 500;
constexpr int kMaxWorkspaceModeChars = 16;

ToolDefinition workspaceRequestDefinition()
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
    QJsonObject hostPath = schema::str(QStringLiteral("absolute path of the host directory"), PathPolicy::kMaxPathBytes);
    hostPath.insert(QStringLiteral("minLength"), 1);
    d.inputSchema = schema::object(
        {{QStringLiteral("host_path"), hostPath},
         {QStringLiteral("mode"), schema::oneOf({QStringLiteral("clone"), QStringLiteral("direct")},
                                                QStringLiteral("clone (default): private clone of a git repository; "
                                                               "direct: the directory itself, read-write"))},
         {QStringLiteral("reason"), schema::str(QStringLiteral("why you need this folder, shown to the user (at most 500 characters)"),
                                                kMaxWorkspaceReasonChars)}},
        {QStringLiteral("host_path")});
    d.outputSchema = schema::object(
        {{QStringLiteral("status"), schema::oneOf({QStringLiteral("approval_required"), QStringLiteral("approved"), QStringLiteral("rejected")},
                                                  QStringLiteral("where the request stands"))},
         {QStringLiteral("approval_id"), schema::str(QStringLiteral("apr_ id of the pending (or rejected) approval"))},
         {QStringLiteral("canonical_path"), schema::str(QStringLiteral("the directory after resolving symbolic links"))},
         {QStringLiteral("mode"), schema::oneOf({QStringLiteral("clone"), QStringLiteral("direct")}, QStringLiteral("requested mode"))},
         {QStringLiteral("how_to_approve"), schema::str(QStringLiteral("what to tell the user"))},
         {QStringLiteral("workspace_id"), schema::str(QStringLiteral("approved: the ws_ id for sandbox_create"))},
         {QStringLiteral("message"), schema::str(QStringLiteral("rejected: what to tell the user"))},
         {QStringLiteral("clone_note"), schema::str(QStringLiteral("clone mode: what the clone holds"))}},
        {QStringLiteral("status"), QStringLiteral("canonical_path"), QStringLiteral("mode")});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Asking the user to share a folder…");
    d.presentation.invoked = QStringLiteral("The user answered the folder request");
    return d;
}

void runWorkspaceRequest(const ToolCall &call, WorkspaceService &workspaces, ApprovalService &approvals)
{
    ToolArgs args(call.arguments);
    QString path, modeName, reason;
    // PathPolicy::kMaxPathBytes counts bytes, the schema's maxLength characters: ToolArgs checks the bytes.
    if (!args.string(QStringLiteral("host_path"), path, PathPolicy::kMaxPathBytes)
        || !args.string(QStringLiteral("mode"), modeName, kMaxWorkspaceModeChars, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("reason"), reason, kMaxWorkspaceReasonChars * 4, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    // The schema allows clone and direct only; anything but an explicit direct stays the safe clone.
    const WorkspaceMode mode = modeName == QLatin1String("direct") ? WorkspaceMode::Direct : WorkspaceMode::Clone;
    // One line, no control characters: it is shown in the tray, a notification and the CLI.
    reason = reason.simplified();
    reason.remove(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]")));

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

void addWorkspaceRequestTool(ToolRegistry &registry, WorkspaceService &workspaces, ApprovalService &approvals)
{
    registry.add(workspaceRequestDefinition(),
                 [&workspaces, &approvals](const ToolCall &call) { runWorkspaceRequest(call, workspaces, approvals); });
}

} // namespace chat2sbx
