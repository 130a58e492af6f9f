#include "ExportDecision.h"

#include "ApprovalJson.h"
#include "Command.h"

#include "sandbox/changes/ExportApprovals.h"

namespace chat2sbx::app {

int decideExportRequest(CommandContext &ctx, ExportApprovals &exports, const QString &id, bool approve)
{
    QString error;
    const bool ok = approve ? exports.approve(id, QStringLiteral("cli"), error).has_value()
                            : exports.reject(id, QStringLiteral("cli"), error);
    if (!ok)
        return ctx.fail(error);
    const std::optional<ExportRequest> r = exports.find(id);
    if (ctx.json)
        ctx.printJson(exportRequestToJson(*r));
    else if (approve)
        ctx.print(QStringLiteral("Approved %1: %2 may be saved; the agent's next export_file of %3 copies it")
                      .arg(id, r->fileName(), r->shown));
    else
        ctx.print(QStringLiteral("Rejected %1: %2 is not saved").arg(id, r->fileName()));
    return 0;
}

} // namespace chat2sbx::app
