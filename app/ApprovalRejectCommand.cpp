// `chat2sbx approval reject <id> [--json]`: refuse a pending host-path request (apr_…) or a file a
// sandbox wants to save (exp_…).
#include "Command.h"
#include "ApprovalJson.h"
#include "ExportDecision.h"
#include "PublicPortDecision.h"

#include "runtime/Services.h"
#include "sandbox/changes/ExportApprovals.h"
#include "workspace/ApprovalService.h"

namespace chat2sbx::app {
namespace {

int reject(CommandContext &ctx, Services &services)
{
    if (ctx.args.size() != 1 || ctx.args.first().startsWith(QLatin1Char('-')))
        return ctx.usage(QStringLiteral("usage: chat2sbx approval reject <id>"));
    const QString id = ctx.args.first();
    if (id.startsWith(QLatin1String("exp_")))
        return decideExportRequest(ctx, *services.exportApprovals, id, false);
    QString error;
    if (!services.approvals->reject(id, QStringLiteral("cli"), error))
        return ctx.fail(error);
    const std::optional<Approval> a = services.approvals->find(id);
    if (ctx.json)
        ctx.printJson(approvalToJson(*a));
    else
        ctx.print(QStringLiteral("Rejected %1 (%2 %3)").arg(id, workspaceModeName(a->mode), a->hostPath));
    return 0;
}

const bool registered = registerCommand({QStringLiteral("approval reject"), QStringLiteral("approval reject <id>"),
                                         QStringLiteral("Reject a pending request: a host folder (apr_…), a file to save (exp_…) or a "
                                                        "cloud port on the internet (pub_…)"),
                                         false, nullptr, {},
                                         [](CommandContext &ctx, Services &services, std::function<void(int)> done) {
                                             if (ctx.args.size() == 1 && ctx.args.first().startsWith(QLatin1String("pub_")))
                                                 return decidePublicPort(ctx, services, ctx.args.first(), false, std::move(done));
                                             done(reject(ctx, services));
                                         }});

} // namespace
} // namespace chat2sbx::app
