// `chat2sbx approval list [--all] [--json]`: pending host-path approvals (--all: decided ones too).
#include "Command.h"
#include "ApprovalJson.h"

#include "core/Clock.h"
#include "runtime/Services.h"
#include "workspace/ApprovalService.h"

#include <QJsonArray>

namespace chat2sbx::app {
namespace {

int runApprovalList(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("approval list: unexpected argument '%1' (usage: approval list [--all] [--json])").arg(ctx.args.first()));
    const bool all = ctx.isSet(QStringLiteral("all"));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    const QList<Approval> approvals = all ? cli.approvals->list() : cli.approvals->pending();
    if (ctx.json) {
        QJsonArray items;
        for (const Approval &a : approvals)
            items.append(approvalToJson(a));
        ctx.printJson(items);
        return 0;
    }
    if (approvals.isEmpty()) {
        ctx.print(all ? QStringLiteral("No approvals.") : QStringLiteral("No pending approvals."));
        return 0;
    }
    QString text;
    for (const Approval &a : approvals) {
        text += QStringLiteral("%1  %2  %3  %4  requested %5")
                    .arg(a.id, workspaceModeName(a.mode).leftJustified(6), approvalStateName(a.state).leftJustified(8),
                         a.hostPath, isoTime(a.requestedAt));
        if (!a.isPending())
            text += QStringLiteral(", %1 %2%3").arg(approvalStateName(a.state), isoTime(a.decidedAt),
                                                    a.workspaceId.isEmpty() ? QString() : QStringLiteral(" -> ") + a.workspaceId);
        text += QLatin1Char('\n');
        if (!a.clientName.isEmpty() || !a.reason.isEmpty())
            text += QStringLiteral("    asked by %1%2\n")
                        .arg(a.clientName.isEmpty() ? QStringLiteral("an MCP client") : a.clientName,
                             a.reason.isEmpty() ? QString() : QStringLiteral(": \"%1\"").arg(a.reason));
    }
    if (!all)
        text += QStringLiteral("Approve with: chat2sbx approval approve <id>   Reject with: chat2sbx approval reject <id>\n");
    ctx.print(text);
    return 0;
}

const bool registered = registerCommand({QStringLiteral("approval list"), QStringLiteral("approval list [--all] [--json]"),
                                         QStringLiteral("List pending host-path approvals"), false, runApprovalList,
                                         {QCommandLineOption(QStringLiteral("all"), QStringLiteral("decided approvals too"))}});

} // namespace
} // namespace chat2sbx::app
