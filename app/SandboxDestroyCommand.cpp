// `chat2sbx sandbox destroy <id>`: removes the runtime (sbx rm --force) and marks the record
// destroyed; also clears failed records. Idempotent.
#include "Command.h"
#include "SandboxCli.h"

#include "core/Ids.h"

#include <QCoreApplication>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runSandboxDestroy(CommandContext &ctx)
{
    if (ctx.args.size() != 1)
        return ctx.usage(QStringLiteral("usage: chat2sbx sandbox destroy <sandbox id>"));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id));
    SandboxCli cli(ctx.config);
    QString error;
    if (!cli.open(error))
        return ctx.fail(error);
    int code = 1;
    bool finished = false;
    cli.sandboxes.destroy(id, [&](const SandboxService::Outcome &o) {
        if (!o.ok) {
            code = ctx.fail(o.error);
        } else {
            code = 0;
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("state"), QStringLiteral("destroyed")}});
            else
                ctx.print(QStringLiteral("sandbox %1 destroyed").arg(id));
        }
        finished = true;
        QCoreApplication::exit(code);
    });
    if (!finished)   // an unknown id answers at once, before the loop runs
        QCoreApplication::exec();
    return code;
}

const bool registered = registerCommand({QStringLiteral("sandbox destroy"), QStringLiteral("sandbox destroy <id>"),
                                         QStringLiteral("Destroy a sandbox (or clear a failed one)"), false, runSandboxDestroy});

} // namespace
} // namespace chat2sbx::app
