// `chat2sbx approval reject <id> [--json]`: refuse a pending host-path request.
#include "Command.h"
#include "LocalState.h"

namespace chat2sbx::app {
namespace {

int runApprovalReject(CommandContext &ctx)
{
    if (ctx.args.size() != 1 || ctx.args.first().startsWith(QLatin1Char('-')))
        return ctx.usage(QStringLiteral("usage: chat2sbx approval reject <id>"));
    const QString id = ctx.args.first();
    LocalState state(ctx.config);
    QString error;
    if (!state.open(error))
        return ctx.fail(error);
    if (!state.approvals().reject(id, QStringLiteral("cli"), error))
        return ctx.fail(error);
    const std::optional<Approval> a = state.approvals().find(id);
    if (ctx.json)
        ctx.printJson(approvalToJson(*a));
    else
        ctx.print(QStringLiteral("Rejected %1 (%2 %3)").arg(id, workspaceModeName(a->mode), a->hostPath));
    return 0;
}

const bool registered = registerCommand({QStringLiteral("approval reject"), QStringLiteral("approval reject <id>"),
                                         QStringLiteral("Reject a host-path request"), false, runApprovalReject});

} // namespace
} // namespace chat2sbx::app
