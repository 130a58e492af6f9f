// `chat2sbx sandbox fetch <id> [--branch NAME]`: the clone sandbox's commits and uncommitted changes
// become a branch of the host repository (ChangesService::exportWork, the same mechanism as the
// export_changes tool and the tray's "Fetch as branch"). The host checkout is never touched.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/changes/ChangesService.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void fetch(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox fetch <sandbox id> [--branch NAME]")));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id)));
    services.changes->exportWork(id, ctx.value(QStringLiteral("branch")), [&ctx, id, done](const ChangesService::ExportOutcome &o) {
        int code = 1;
        if (!o.ok) {
            code = ctx.fail(QStringLiteral("cannot fetch the work of %1: %2").arg(id, o.error));
        } else {
            code = 0;
            QJsonArray commits;
            for (const auto &c : o.commits)
                commits.append(QJsonObject{{QStringLiteral("id"), c.first}, {QStringLiteral("subject"), c.second}});
            if (ctx.json) {
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id},
                                          {QStringLiteral("exported"), !o.nothing},
                                          {QStringLiteral("branch"), o.nothing ? QJsonValue() : QJsonValue(o.branch)},
                                          {QStringLiteral("repository"), o.repository},
                                          {QStringLiteral("commit"), o.tip},
                                          {QStringLiteral("commits"), commits},
                                          {QStringLiteral("includes_uncommitted_changes"), o.uncommitted},
                                          {QStringLiteral("command"), o.command}});
            } else if (o.nothing) {
                ctx.print(QStringLiteral("nothing to fetch: sandbox %1 has no commit and no change since it started").arg(id));
            } else {
                QStringList lines{QStringLiteral("branch %1 in %2 now holds the work of %3:").arg(o.branch, o.repository, id)};
                for (const auto &c : o.commits)
                    lines << QStringLiteral("  %1 %2").arg(c.first.left(12), c.second);
                if (o.uncommitted)
                    lines << QStringLiteral("  (the newest commit holds the sandbox's uncommitted changes)");
                lines << QStringLiteral("look at it with: git -C %1 %2").arg(o.repository, o.command);
                ctx.print(lines.join(QLatin1Char('\n')));
            }
        }
        done(code);
    });
}

const bool registered = registerCommand(
    {QStringLiteral("sandbox fetch"), QStringLiteral("sandbox fetch <id> [--branch NAME]"),
     QStringLiteral("Bring a clone sandbox's work home as branch chat2sbx/<id> of the host repository"), false, nullptr,
     {QCommandLineOption(QStringLiteral("branch"), QStringLiteral("branch name (under chat2sbx/)"), QStringLiteral("name"))}, fetch});

} // namespace
} // namespace chat2sbx::app
