// `chat2sbx sandbox export <id> <path> [--json]`: a file (or a folder, as a .tar.gz) of a running
// sandbox into the export folder (exportDir, ~/Downloads/chat2sbx by default), the same copy as the
// export_file tool (FileExport): a safe name, never over a file, nothing half-written left.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/changes/FileExport.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void exportFile(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 2)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox export <sandbox id> <path in the sandbox>")));
    const QString id = ctx.args.at(0), path = ctx.args.at(1);
    if (!isWellFormedId(id, "sbx_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id)));
    QString error;
    RunningSandbox sandbox;
    if (!services.sandboxes->resolveRunning(id, sandbox, error))
        return done(ctx.fail(QStringLiteral("cannot export from %1: %2").arg(id, error)));
    services.fileExport->start(sandbox, path, path, [&ctx, id, path, done](const FileExport::Outcome &o) {
        int code = 1;
        if (!o.ok) {
            code = ctx.fail(QStringLiteral("cannot export %1 from %2: %3; nothing was written").arg(path, id, o.error));
        } else {
            code = 0;
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id},
                                          {QStringLiteral("path"), path},
                                          {QStringLiteral("host_path"), o.hostPath},
                                          {QStringLiteral("size"), static_cast<double>(o.size)},
                                          {QStringLiteral("sha256"), o.sha256},
                                          {QStringLiteral("packed"), o.packed}});
            else
                ctx.print(QStringLiteral("%1%2 → %3 (%4 bytes)").arg(path, o.packed ? QStringLiteral(" (packed as .tar.gz)") : QString(),
                                                                    o.hostPath).arg(o.size));
        }
        done(code);
    });
}

const bool registered = registerCommand({QStringLiteral("sandbox export"), QStringLiteral("sandbox export <id> <path> [--json]"),
                                         QStringLiteral("Copy a file (a folder as .tar.gz) from a sandbox to the export folder"),
                                         false, nullptr, {}, exportFile});

} // namespace
} // namespace chat2sbx::app
