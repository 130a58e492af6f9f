// `chat2sbx workspace remove <workspace_id>`: withdraws a host workspace's approval (a managed one
// goes to the trash) after destroying its sandboxes, a clone's work saved as a host branch first.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/WorkspaceRemoval.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void remove(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx workspace remove <workspace id>")));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "ws_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a workspace id (ws_ followed by 24 hex digits)").arg(id)));
    services.removal->remove(id, [&ctx, id, done](const WorkspaceRemoval::Outcome &o) {
        int code = 1;
        if (!o.ok) {
            code = ctx.fail(o.error);
        } else {
            code = 0;
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("workspace_id"), id},
                                          {QStringLiteral("removed"), true},
                                          {QStringLiteral("destroyed_sandboxes"), QJsonArray::fromStringList(o.destroyedSandboxes)},
                                          {QStringLiteral("saved_branches"), QJsonArray::fromStringList(o.savedBranches)},
                                          {QStringLiteral("summary"), o.summary}});
            else
                ctx.print(o.summary);
        }
        done(code);
    });
}

const bool registered = registerCommand({QStringLiteral("workspace remove"), QStringLiteral("workspace remove <id>"),
                                         QStringLiteral("Revoke a host workspace (a managed one goes to the trash); its sandboxes "
                                                        "are destroyed, a clone's work saved as a branch first"),
                                         false, nullptr, {}, remove});

} // namespace
} // namespace chat2sbx::app
