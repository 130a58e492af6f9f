// `chat2sbx approval list [--all] [--json]`: pending host-path approvals and files sandboxes want to
// save (--all: decided ones too).
#include "Command.h"
#include "ApprovalJson.h"
#include "PublicPortDecision.h"
#include "sandbox/ports/PublicPorts.h"

#include "core/Clock.h"
#include "core/LogText.h"
#include "runtime/Services.h"
#include "sandbox/changes/ExportApprovals.h"
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
    const QList<ExportRequest> exports = all ? cli.exportApprovals->list() : cli.exportApprovals->pending();
    const QList<PublicPortRequest> ports = all ? cli.publicPorts->list() : cli.publicPorts->pending();
    if (ctx.json) {
        QJsonArray items;
        for (const Approval &a : approvals)
            items.append(approvalToJson(a));
        for (const ExportRequest &r : exports)
            items.append(exportRequestToJson(r));
        for (const PublicPortRequest &r : ports)
            items.append(publicPortToJson(r));
        ctx.printJson(items);
        return 0;
    }
    if (approvals.isEmpty() && exports.isEmpty() && ports.isEmpty()) {
        ctx.print(all ? QStringLiteral("No approvals.") : QStringLiteral("No pending approvals."));
        return 0;
    }
    QString text;
    for (const Approval &a : approvals) {
        text += QStringLiteral("%1  %2  %3  %4  requested %5")
                    .arg(a.id, workspaceModeName(a.mode).leftJustified(6), approvalStateName(a.state).leftJustified(8),
                         logSafe(a.hostPath, 400), isoTime(a.requestedAt));
        if (!a.isPending())
            text += QStringLiteral(", %1 %2%3").arg(approvalStateName(a.state), isoTime(a.decidedAt),
                                                    a.workspaceId.isEmpty() ? QString() : QStringLiteral(" -> ") + a.workspaceId);
        text += QLatin1Char('\n');
        if (!a.clientName.isEmpty() || !a.reason.isEmpty())
            text += QStringLiteral("    asked by %1%2\n")
                        .arg(a.clientName.isEmpty() ? QStringLiteral("an MCP client") : logSafe(a.clientName, 100),
                             a.reason.isEmpty() ? QString() : QStringLiteral(": \"%1\"").arg(logSafe(a.reason, 400)));
    }
    for (const ExportRequest &r : exports) {
        text += QStringLiteral("%1  save    %2  %3 (%4 bytes) from %5  requested %6")
                    .arg(r.id, exportRequestStateName(r.state).leftJustified(8), logSafe(r.fileName(), 200), QString::number(r.size),
                         r.sandboxId, isoTime(r.requestedAt));
        if (r.decidedAt)
            text += QStringLiteral(", decided %1").arg(isoTime(r.decidedAt));
        text += QStringLiteral("\n    %1\n").arg(logSafe(r.why, 600));
    }
    for (const PublicPortRequest &r : ports) {
        text += QStringLiteral("%1  public  %2  port %3 of %4 on the internet  requested %5")
                    .arg(r.id, publicPortStateName(r.state).leftJustified(8), QString::number(r.port), r.sandboxId, isoTime(r.requestedAt));
        if (!r.url.isEmpty())
            text += QStringLiteral(" -> ") + logSafe(r.url, 300);
        text += QLatin1Char('\n');
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
