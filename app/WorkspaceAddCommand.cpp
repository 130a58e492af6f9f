// `chat2sbx workspace add <path> [--mode clone|direct] [--json]`: register a host workspace
// directly (the local user is the one deciding), under the same path policy as approvals.
#include "Command.h"
#include "LocalState.h"

#include <QDir>

namespace chat2sbx::app {
namespace {

int runWorkspaceAdd(CommandContext &ctx)
{
    const QString usage = QStringLiteral("usage: chat2sbx workspace add <path> [--mode clone|direct]");
    QString path;
    QString modeText = QStringLiteral("clone");
    for (int i = 0; i < ctx.args.size(); ++i) {
        const QString &a = ctx.args.at(i);
        if (a == QLatin1String("--mode")) {
            if (i + 1 >= ctx.args.size())
                return ctx.fail(QStringLiteral("--mode needs a value: clone or direct"));
            modeText = ctx.args.at(++i);
        } else if (a.startsWith(QLatin1String("--mode="))) {
            modeText = a.mid(7);
        } else if (a.startsWith(QLatin1String("--"))) {
            return ctx.fail(QStringLiteral("workspace add: unknown option %1 (%2)").arg(a, usage));
        } else if (path.isNull()) {
            path = a;
        } else {
            return ctx.fail(QStringLiteral("workspace add takes one path (%1)").arg(usage));
        }
    }
    if (path.isEmpty())
        return ctx.fail(usage);
    WorkspaceMode mode = WorkspaceMode::Clone;
    if (!parseWorkspaceMode(modeText, mode) || mode == WorkspaceMode::Managed)
        return ctx.fail(QStringLiteral("--mode must be clone or direct (got '%1')").arg(modeText));
    // A relative path is relative to where the user runs the command; nothing is cleaned lexically,
    // so ".." stays visible to the policy (which refuses it).
    if (!path.startsWith(QLatin1Char('/')))
        path = QDir::currentPath() + QLatin1Char('/') + path;

    LocalState state(ctx.config);
    QString error;
    if (!state.open(error))
        return ctx.fail(error);
    const qsizetype before = state.workspaces().list().size();
    const std::optional<Workspace> ws = state.workspaces().registerHost(path, mode, error);
    if (!ws)
        return ctx.fail(QStringLiteral("cannot add the workspace: %1").arg(error));
    const bool created = state.workspaces().list().size() > before;
    if (ctx.json) {
        QJsonObject out = workspaceToJson(WorkspaceOverview{*ws, {}, 0});
        out.insert(QStringLiteral("created"), created);
        ctx.printJson(out);
    } else {
        ctx.print(QStringLiteral("%1 %2 workspace %3 for %4")
                      .arg(created ? QStringLiteral("Registered") : QStringLiteral("Already registered:"),
                           workspaceModeName(ws->mode), ws->id, ws->hostPath));
    }
    return 0;
}

const bool registered = registerCommand({QStringLiteral("workspace add"), QStringLiteral("workspace add <path> [--mode clone|direct]"),
                                         QStringLiteral("Register a host workspace"), false, runWorkspaceAdd});

} // namespace
} // namespace chat2sbx::app
