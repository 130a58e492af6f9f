// `chat2sbx sandbox destroy <id> [--force]`: saves a clone sandbox's work as a host branch first
// (refusing when that fails, unless --force), removes the runtime (sbx rm --force) and marks the
// record destroyed; also clears failed records. Idempotent.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void destroy(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox destroy <sandbox id> [--force]")));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id)));
    services.sandboxes->destroy(id, [&ctx, id, done](const SandboxService::Outcome &o) {
        if (!o.ok)
            return done(ctx.fail(o.error));
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
        done(0);
    }, {}, ctx.isSet(QStringLiteral("force")));
}

const bool registered = registerCommand({QStringLiteral("sandbox destroy"), QStringLiteral("sandbox destroy <id> [--force]"),
                                         QStringLiteral("Destroy a sandbox (or clear a failed one); a clone's work is saved as a branch first"),
                                         false, nullptr,
                                         {QCommandLineOption(QStringLiteral("force"),
                                                             QStringLiteral("destroy even if the clone's work cannot be saved"))},
                                         destroy});

} // namespace
} // namespace chat2sbx::app
