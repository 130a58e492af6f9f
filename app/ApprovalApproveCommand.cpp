// `chat2sbx approval approve <id> [--json]`: grant a pending host-path request (apr_…), let a sandbox
// save a file on this computer (exp_…) or publish a cloud sandbox's port on the internet (pub_…).
#include "Command.h"
#include "ApprovalJson.h"
#include "ExportDecision.h"
#include "PublicPortDecision.h"

#include "runtime/Services.h"
#include "sandbox/changes/ExportApprovals.h"
#include "workspace/ApprovalService.h"

namespace chat2sbx::app {
namespace {

int approve(CommandContext &ctx, Services &services)
{
    if (ctx.args.size() != 1 || ctx.args.first().startsWith(QLatin1Char('-')))
        return ctx.usage(QStringLiteral("usage: chat2sbx approval approve <id>"));
    const QString id = ctx.args.first();
    if (id.startsWith(QLatin1String("exp_")))
        return decideExportRequest(ctx, *services.exportApprovals, id, true);
    QString error;
    const std::optional<Workspace> ws = services.approvals->approve(id, QStringLiteral("cli"), error);
    if (!ws)
        return ctx.fail(error);
    if (ctx.json) {
        QJsonObject out = approvalToJson(*services.approvals->find(id));
        out.insert(QStringLiteral("workspace_id"), ws->id);
        ctx.printJson(out);
    } else {
        ctx.print(QStringLiteral("Approved %1: %2 workspace %3 for %4").arg(id, workspaceModeName(ws->mode), ws->id, ws->hostPath));
    }
    return 0;
}

const bool registered = registerCommand({QStringLiteral("approval approve"), QStringLiteral("approval approve <id>"),
                                         QStringLiteral("Approve a pending request: a host folder (apr_…), a file to save (exp_…) or "
                                                        "a cloud port on the internet (pub_…)"),
                                         false, nullptr, {},
                                         [](CommandContext &ctx, Services &services, std::function<void(int)> done) {
                                             if (ctx.args.size() == 1 && ctx.args.first().startsWith(QLatin1String("pub_")))
                                                 return decidePublicPort(ctx, services, ctx.args.first(), true, std::move(done));
                                             done(approve(ctx, services));
                                         }});

} // namespace
} // namespace chat2sbx::app
