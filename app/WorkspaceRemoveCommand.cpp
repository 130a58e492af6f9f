// `chat2sbx workspace remove <workspace_id>`: withdraws a host workspace's approval (a managed one
// goes to the trash) after destroying its sandboxes, a clone's work saved as a host branch first.
#include "Command.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/WorkspaceRemoval.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

int runWorkspaceRemove(CommandContext &ctx)
{
    if (ctx.args.size() != 1)
        return ctx.usage(QStringLiteral("usage: chat2sbx workspace remove <workspace id>"));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "ws_"))
        return ctx.fail(QStringLiteral("'%1' is not a workspace id (ws_ followed by 24 hex digits)").arg(id));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    int code = 1;
    bool finished = false;
    cli.removal->remove(id, [&](const WorkspaceRemoval::Outcome &o) {
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
        finished = true;
        QCoreApplication::exit(code);
    });
    if (!finished)
        QCoreApplication::exec();
    return code;
}

const bool registered = registerCommand({QStringLiteral("workspace remove"), QStringLiteral("workspace remove <id>"),
                                         QStringLiteral("Revoke a host workspace (a managed one goes to the trash); its sandboxes "
                                                        "are destroyed, a clone's work saved as a branch first"),
                                         false, runWorkspaceRemove});

} // namespace
} // namespace chat2sbx::app
