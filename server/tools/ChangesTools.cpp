#include "tools/ChangesTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/ChangesService.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcChangesTools, "chat2sbx.tools.changes")

namespace {

constexpr int kMaxPathBytes = 4096;
constexpr qsizetype kDiffCapBytes = 60000;
constexpr int kMaxFilesShown = 1000;

QJsonObject typed(const QString &type)
{
    return {{QStringLiteral("type"), type}};
}

QJsonObject fileJson(const ChangedFile &f)
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

void handleShowChanges(SandboxResolver &resolver, ChangesService &service, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id, path;
    bool includeDiff = true;
    if (!args.sandboxId(id) || !args.string(QStringLiteral("path"), path, kMaxPathBytes, false)
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
            if (files.size() < kMaxFilesShown)
                files.append(fileJson(f));
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
        if (c.files.size() > kMaxFilesShown)
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

void handleExportChanges(ChangesService &service, const ToolCall &call)
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

void registerChangesTools(ToolRegistry &registry, SandboxResolver &resolver, ChangesService &changes)
{
    const QJsonObject sandboxId = schema::sandboxIdProperty();
    ToolDefinition show;
    show.name = QStringLiteral("show_changes");
    show.title = QStringLiteral("Show changes");
    show.description = QStringLiteral(
        "Use this to review the work done in a sandbox whose workspace is a git repository (clone, direct, or a managed "
        "workspace after git init): the commits made since the sandbox started, every changed file (committed, staged, "
        "unstaged or untracked) with added/removed line counts, and the unified diff (capped; a marker says how to see the "
        "rest). Read-only.");
    show.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("path"), schema::str(QStringLiteral("Only this file or folder (relative to the workspace); omit for all"),
                                              kMaxPathBytes)},
         {QStringLiteral("include_diff"), schema::boolean(QStringLiteral("Include the unified diff (default true)"))}},
        {QStringLiteral("sandbox_id")});
    show.outputSchema = schema::result({{QStringLiteral("commits"), typed(QStringLiteral("array"))},
                                        {QStringLiteral("files"), typed(QStringLiteral("array"))},
                                        {QStringLiteral("diff"), typed(QStringLiteral("string"))}},
                                       {});
    show.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    show.presentation = {QStringLiteral("Collecting the changes…"), QStringLiteral("Collected the changes"), true, {QStringLiteral("diff")}};
    if (!registry.add(show, [&resolver, &changes](const ToolCall &call) { handleShowChanges(resolver, changes, call); }))
        qCWarning(lcChangesTools) << "cannot register show_changes";

    ToolDefinition exp;
    exp.name = QStringLiteral("export_changes");
    exp.title = QStringLiteral("Export changes to the host repository");
    exp.description = QStringLiteral(
        "Use this in a clone-mode sandbox to hand your work to the user: your commits since the sandbox started, plus one "
        "commit holding any uncommitted changes, become the branch chat2sbx/<sandbox_id> in the user's repository on their "
        "computer. Their checkout, current branch and other branches are not touched. Repeating it updates the branch. "
        "Managed workspaces have no host repository; direct-mode changes are already on the host.");
    exp.inputSchema = schema::object({{QStringLiteral("sandbox_id"), sandboxId}}, {QStringLiteral("sandbox_id")});
    exp.outputSchema = schema::result({{QStringLiteral("branch"), typed(QStringLiteral("string"))},
                                       {QStringLiteral("commits"), typed(QStringLiteral("array"))},
                                       {QStringLiteral("command"), typed(QStringLiteral("string"))}},
                                      {});
    exp.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    exp.presentation = {QStringLiteral("Exporting the work to a host branch…"), QStringLiteral("Exported the work to a host branch"), true};
    if (!registry.add(exp, [&changes](const ToolCall &call) { handleExportChanges(changes, call); }))
        qCWarning(lcChangesTools) << "cannot register export_changes";
}

} // namespace chat2sbx
