// `chat2sbx workspace add <path> [--mode clone|direct] [--json]`: register a host workspace
// directly (the local user is the one deciding), under the same path policy as approvals.
#include "Command.h"

#include "runtime/Services.h"
#include "sandbox/present/SandboxPresenter.h"
#include "workspace/WorkspaceService.h"

#include <QDir>

namespace chat2sbx::app {
namespace {

int add(CommandContext &ctx, Services &services)
{
    const QString usage = QStringLiteral("usage: chat2sbx workspace add <path> [--mode clone|direct]");
    if (ctx.args.size() > 1)
        return ctx.usage(QStringLiteral("workspace add takes one path (%1)").arg(usage));
    QString path = ctx.args.value(0);
    const QString modeText = ctx.isSet(QStringLiteral("mode")) ? ctx.value(QStringLiteral("mode")) : QStringLiteral("clone");
    if (path.isEmpty())
        return ctx.usage(usage);
    WorkspaceMode mode = WorkspaceMode::Clone;
    if (!parseWorkspaceMode(modeText, mode) || mode == WorkspaceMode::Managed)
        return ctx.usage(QStringLiteral("--mode must be clone or direct (got '%1')").arg(modeText));
    // A relative path is relative to where the user runs the command; nothing is cleaned lexically,
    // so ".." stays visible to the policy (which refuses it).
    if (!path.startsWith(QLatin1Char('/')))
        path = ctx.currentDirectory() + QLatin1Char('/') + path;

    QString error;
    const qsizetype before = services.workspaces->list().size();
    const std::optional<Workspace> ws = services.workspaces->registerHost(path, mode, error);
    if (!ws)
        return ctx.fail(QStringLiteral("cannot add the workspace: %1").arg(error));
    const bool created = services.workspaces->list().size() > before;
    if (ctx.json) {
        QJsonObject out = workspaceJson(WorkspaceOverview{*ws, {}, 0}, Audience::LocalUser);
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
                                         QStringLiteral("Register a host workspace"), false, nullptr,
                                         {QCommandLineOption(QStringLiteral("mode"), QStringLiteral("clone or direct"), QStringLiteral("mode"))},
                                         [](CommandContext &ctx, Services &services, std::function<void(int)> done) {
                                             done(add(ctx, services));
                                         }});

} // namespace
} // namespace chat2sbx::app
