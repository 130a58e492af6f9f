// `chat2sbx workspace list [--json]`: every live workspace, its sandbox and retention deadline.
#include "Command.h"

#include "core/Clock.h"
#include "runtime/Services.h"
#include "sandbox/present/SandboxPresenter.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>

namespace chat2sbx::app {
namespace {

int runWorkspaceList(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("workspace list: unexpected argument '%1' (usage: workspace list [--json])").arg(ctx.args.first()));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    const QList<WorkspaceOverview> all = cli.workspaces->overview();
    if (ctx.json) {
        QJsonArray items;
        for (const WorkspaceOverview &o : all)
            items.append(workspaceJson(o, Audience::LocalUser));
        ctx.printJson(items);
        return 0;
    }
    if (all.isEmpty()) {
        ctx.print(QStringLiteral("No workspaces."));
        return 0;
    }
    QString text;
    for (const WorkspaceOverview &o : all) {
        const Workspace &w = o.workspace;
        text += QStringLiteral("%1  %2  %3  %4").arg(w.id, workspaceModeName(w.mode).leftJustified(7), w.displayName, w.hostPath);
        if (!o.activeSandboxId.isEmpty())
            text += QStringLiteral("  sandbox %1").arg(o.activeSandboxId);
        else if (o.retentionDeadline)
            text += QStringLiteral("  kept until %1").arg(isoTime(o.retentionDeadline));
        text += QLatin1Char('\n');
    }
    ctx.print(text);
    return 0;
}

const bool registered = registerCommand({QStringLiteral("workspace list"), QStringLiteral("workspace list [--json]"),
                                         QStringLiteral("List known workspaces"), false, runWorkspaceList});

} // namespace
} // namespace chat2sbx::app
