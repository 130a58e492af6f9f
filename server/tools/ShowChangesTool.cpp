#include "tools/ChangesTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/ChangesService.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

constexpr qsizetype kDiffCapBytes = 60000;
constexpr int kMaxChangedFilesShown = 1000;

ToolDefinition showChangesDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("show_changes");
    d.title = QStringLiteral("Show changes");
    d.description = QStringLiteral(
        "Use this to review the work done in a sandbox whose workspace is a git repository (clone, direct, or a managed "
        "workspace after git init): the commits made since the sandbox started, every changed file (committed, staged, "
        "unstaged or untracked) with added/removed line counts, and the unified diff (capped; a marker says how to see the "
        "rest). Read-only.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("path"), schema::str(QStringLiteral("Only this file or folder (relative to the workspace); omit for all"),
                                              kMaxSandboxPathBytes)},
         {QStringLiteral("include_diff"), schema::boolean(QStringLiteral("Include the unified diff (default true)"))}},
        {QStringLiteral("sandbox_id")});
    d.outputSchema = schema::result({{QStringLiteral("commits"), schema::typed(QStringLiteral("array"))},
                                     {QStringLiteral("files"), schema::typed(QStringLiteral("array"))},
                                     {QStringLiteral("diff"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Collecting the changes…");
    d.presentation.invoked = QStringLiteral("Collected the changes");
    d.presentation.cardView = ToolCardView::Diff;
    d.presentation.payloadFields = {QStringLiteral("diff")};
    return d;
}

QJsonObject changedFileJson(const ChangedFile &f)
{
    QJsonObject o{{QStringLiteral("path"), f.path},
                  {QStringLiteral("status"), f.status.isEmpty() ? QStringLiteral("modified") : f.status}};
    if (f.added >= 0 && f.removed >= 0) {
        o.insert(QStringLiteral("added"), f.added);
        o.insert(QStringLiteral("removed"), f.removed);
    } else {
        o.insert(QStringLiteral("binary"), true);
    }
    QJsonArray where;
    if (f.committed)
        where.append(QStringLiteral("committed"));
    if (f.staged)
        where.append(QStringLiteral("staged"));
    if (f.unstaged)
        where.append(QStringLiteral("unstaged"));
    if (f.untracked)
        where.append(QStringLiteral("untracked"));
    o.insert(QStringLiteral("where"), where);
    return o;
}

void runShowChanges(SandboxResolver &resolver, ChangesService &service, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id, path;
    bool includeDiff = true;
    if (!args.sandboxId(id) || !args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes,
                                            ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("include_diff"), includeDiff, true))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    QString error;
    if (!resolver.resolveRunning(id, sandbox, error))
        return call.responder.error(error);
    noteWake(call, sandbox);
    // An absolute path inside the workspace becomes the repository-relative pathspec git wants.
    const QString ws = sandbox.managedWorkspace ? QStringLiteral("~/workspace") : sandbox.workspacePath;
    if (path == ws)
        path.clear();
    else if (path.startsWith(ws + QLatin1Char('/')))
        path = path.mid(ws.size() + 1);
    if (path.startsWith(QLatin1Char('/')) || path.startsWith(QLatin1Char('~')))
        return call.responder.error(QStringLiteral("path must be inside the workspace (%1), relative to it or absolute").arg(ws));
    const QString pathShown = path;
    service.changes(sandbox, path, includeDiff, kDiffCapBytes,
                    [responder = call.responder, id, pathShown, includeDiff, ws](const ChangesService::ChangesOutcome &o) {
        if (!o.ok)
            return responder.error(QStringLiteral("cannot show the changes of %1: %2").arg(ws, o.error));
        const WorkspaceChanges &c = o.changes;
        QJsonArray commits;
        for (const ChangeCommit &cm : c.commits)
            commits.append(QJsonObject{{QStringLiteral("id"), cm.id}, {QStringLiteral("subject"), cm.subject}});
        QJsonArray files;
        int added = 0, removed = 0;
        for (const ChangedFile &f : c.files) {
            added += qMax(0, f.added);
            removed += qMax(0, f.removed);
            if (files.size() < kMaxChangedFilesShown)
                files.append(changedFileJson(f));
        }
        QJsonObject result{{QStringLiteral("sandbox_id"), id},
                           {QStringLiteral("workspace_path"), ws},
                           {QStringLiteral("base_commit"), c.base.isEmpty() ? QJsonValue() : QJsonValue(c.base)},
                           {QStringLiteral("head_commit"), c.head.isEmpty() ? QJsonValue() : QJsonValue(c.head)},
                           {QStringLiteral("branch"), c.branch},
                           {QStringLiteral("commits"), commits},
                           {QStringLiteral("files"), files},
                           {QStringLiteral("files_changed"), int(c.files.size())},
                           {QStringLiteral("lines_added"), added},
                           {QStringLiteral("lines_removed"), removed}};
        if (c.commitsTruncated)
            result.insert(QStringLiteral("commits_truncated"), true);
        if (c.files.size() > kMaxChangedFilesShown)
            result.insert(QStringLiteral("files_truncated"), true);
        if (includeDiff) {
            QString diff = c.diff;
            if (c.diffTruncated)
                diff += QStringLiteral("\n… diff truncated at %1 bytes: call show_changes with path set to one file or folder "
                                       "to see the rest, or run `git diff %2` in the sandbox\n")
                            .arg(kDiffCapBytes).arg(c.base.isEmpty() ? QStringLiteral("--cached") : c.base.left(12));
            result.insert(QStringLiteral("diff"), diff);
            result.insert(QStringLiteral("diff_truncated"), c.diffTruncated);
        }
        if (!pathShown.isEmpty())
            result.insert(QStringLiteral("path"), pathShown);
        responder.ok(result);
    });
}

} // namespace

void addShowChangesTool(ToolRegistry &registry, SandboxResolver &resolver, ChangesService &changes)
{
    registry.add(showChangesDefinition(), [&resolver, &changes](const ToolCall &call) { runShowChanges(resolver, changes, call); });
}

} // namespace chat2sbx
