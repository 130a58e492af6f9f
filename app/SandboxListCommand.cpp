// `chat2sbx sandbox list [--json]`: every sandbox record (failed ones with their reason).
#include "Command.h"

#include "core/Clock.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxNames.h"
#include "sandbox/present/SandboxPresenter.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runSandboxList(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("sandbox list takes no arguments besides --json (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    const QList<SandboxView> views = cli.sandboxes->list();
    if (ctx.json) {
        QJsonArray items;
        for (const SandboxView &v : views) {
            QJsonObject item = sandboxJson(v, *cli.sandboxes, Audience::LocalUser);
            item.insert(QStringLiteral("name"), sandboxShortName(v));
            items.append(item);
        }
        ctx.printJson(QJsonObject{{QStringLiteral("sandboxes"), items}});
        return 0;
    }
    if (views.isEmpty()) {
        ctx.print(QStringLiteral("no sandboxes"));
        return 0;
    }
    int nameWidth = 4;
    for (const SandboxView &v : views)
        nameWidth = qMax(nameWidth, static_cast<int>(sandboxShortName(v).size()));
    QString text = QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                       .arg(QStringLiteral("NAME").leftJustified(nameWidth), QStringLiteral("SANDBOX").leftJustified(28),
                            QStringLiteral("STATE").leftJustified(10),
                            QStringLiteral("MEMORY").leftJustified(7), QStringLiteral("CREATED (UTC)").leftJustified(19),
                            QStringLiteral("WORKSPACE"));
    for (const SandboxView &v : views) {
        const SandboxRecord &r = v.record;
        QString ws = r.workspaceId;
        if (v.workspace)
            ws += QStringLiteral(" (%1 %2)").arg(workspaceModeName(v.workspace->mode), v.workspace->hostPath);
        text += QStringLiteral("%1  %2  %3  %4  %5  %6\n")
                    .arg(sandboxShortName(v).leftJustified(nameWidth), r.id.leftJustified(28),
                         sandboxStateName(r.state).leftJustified(10),
                         memoryText(r.memory).leftJustified(7),
                         isoTime(r.createdAt).left(19).replace(QLatin1Char('T'), QLatin1Char(' ')), ws);
        if (!r.reason.isEmpty())
            text += QStringLiteral("    reason: %1\n").arg(r.reason);
        if (r.isUnreachable())
            text += QStringLiteral("    unreachable since %1: %2\n")
                        .arg(isoTime(r.unreachableSince).left(19).replace(QLatin1Char('T'), QLatin1Char(' ')), r.unreachableWhy);
    }
    ctx.print(text);
    return 0;
}

const bool registered = registerCommand({QStringLiteral("sandbox list"), QStringLiteral("sandbox list [--json]"),
                                         QStringLiteral("List sandboxes"), false, runSandboxList});

} // namespace
} // namespace chat2sbx::app
