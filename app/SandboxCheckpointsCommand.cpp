// `chat2sbx sandbox checkpoints <id> [--json]`: a sandbox's checkpoints (sandbox_checkpoint), oldest
// first, with their state and, for failed ones, why.
#include "Command.h"

#include "core/Clock.h"
#include "core/LogText.h"
#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/present/CheckpointJson.h"
#include "state/CheckpointRepository.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runSandboxCheckpoints(CommandContext &ctx)
{
    if (ctx.args.size() != 1 || !isWellFormedId(ctx.args.first(), "sbx_"))
        return ctx.usage(QStringLiteral("usage: chat2sbx sandbox checkpoints <sandbox id> [--json]"));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    const QList<Checkpoint> checkpoints = CheckpointRepository(*cli.db).listFor(ctx.args.first());
    if (ctx.json) {
        QJsonArray items;
        for (const Checkpoint &c : checkpoints)
            items.append(checkpointJson(c));
        ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), ctx.args.first()}, {QStringLiteral("checkpoints"), items}});
        return 0;
    }
    if (checkpoints.isEmpty()) {
        ctx.print(QStringLiteral("no checkpoints of %1").arg(ctx.args.first()));
        return 0;
    }
    QString text;
    for (const Checkpoint &c : checkpoints) {
        const QString where = !c.inCloud ? QString() : c.keepsMemory ? QStringLiteral("  [cloud, with memory]") : QStringLiteral("  [cloud]");
        text += QStringLiteral("%1  %2  %3  %4%5%6\n")
                    .arg(c.id, checkpointStateName(c.state).leftJustified(6), isoTime(c.createdAt),
                         c.label.isEmpty() ? QStringLiteral("-") : logSafe(c.label, 200), where,
                         c.failure.isEmpty() ? QString() : QStringLiteral("  (%1)").arg(logSafe(c.failure, 400)));
    }
    ctx.print(text);
    return 0;
}

const bool registered = registerCommand({QStringLiteral("sandbox checkpoints"), QStringLiteral("sandbox checkpoints <id> [--json]"),
                                         QStringLiteral("List a sandbox's checkpoints"), false, runSandboxCheckpoints});

} // namespace
} // namespace chat2sbx::app
