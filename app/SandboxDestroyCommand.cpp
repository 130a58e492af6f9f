// `chat2sbx sandbox destroy <id> [--force]`: saves a clone sandbox's work as a host branch first
// (refusing when that fails, unless --force), removes the runtime (sbx rm --force) and marks the
// record destroyed; also clears failed records. Idempotent.
#include "Command.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QCoreApplication>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runSandboxDestroy(CommandContext &ctx)
{
    if (ctx.args.size() != 1)
        return ctx.usage(QStringLiteral("usage: chat2sbx sandbox destroy <sandbox id> [--force]"));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    int code = 1;
    bool finished = false;
    cli.sandboxes->destroy(id, [&](const SandboxService::Outcome &o) {
        if (!o.ok) {
            code = ctx.fail(o.error);
        } else {
            code = 0;
            if (ctx.json) {
                QJsonObject out{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("state"), QStringLiteral("destroyed")}};
                if (!o.keptBranch.isEmpty())
                    out.insert(QStringLiteral("work_saved_on_branch"), o.keptBranch);
                if (!o.keptSummary.isEmpty())
                    out.insert(QStringLiteral("work"), o.keptSummary);
                ctx.printJson(out);
            } else {
                ctx.print(o.keptSummary.isEmpty() ? QStringLiteral("sandbox %1 destroyed").arg(id)
                                                  : QStringLiteral("sandbox %1 destroyed; %2").arg(id, o.keptSummary));
            }
        }
        finished = true;
        QCoreApplication::exit(code);
    }, {}, ctx.isSet(QStringLiteral("force")));
    if (!finished)   // an unknown id answers at once, before the loop runs
        QCoreApplication::exec();
    return code;
}

const bool registered = registerCommand({QStringLiteral("sandbox destroy"), QStringLiteral("sandbox destroy <id> [--force]"),
                                         QStringLiteral("Destroy a sandbox (or clear a failed one); a clone's work is saved as a branch first"),
                                         false, runSandboxDestroy,
                                         {QCommandLineOption(QStringLiteral("force"),
                                                             QStringLiteral("destroy even if the clone's work cannot be saved"))}});

} // namespace
} // namespace chat2sbx::app
