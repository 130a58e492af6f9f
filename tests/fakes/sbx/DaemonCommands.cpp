// sbx daemon stop | status (sbx-contract.md, "How sbx fails in the field"): stopping the daemon stops
// every running sandbox (their files stay); the next daemon command starts it again, at the
// client's version after an update (FAKE_SBX_UPDATE_PENDING is then answered). `status` exits 0
// whether it runs or not (sbx-releases#283): read its "Status:" line.
#include "Args.h"
#include "Commands.h"
#include "Lifecycle.h"

#include <QFile>
#include <QFileInfo>

namespace fakesbx {

int cmdDaemon(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    const QString sub = parsed.positional.value(0);
    if (parsed.positional.size() != 1 || (sub != QLatin1String("stop") && sub != QLatin1String("status")))
        return usageError(QStringLiteral("usage: sbx daemon stop|status"));
    const QString marker = ctx.state.path(QStringLiteral("daemon.log"));
    if (sub == QLatin1String("status")) {
        printOut(QFileInfo::exists(marker) ? "Status: running\n" : "Status: stopped\n");
        return 0;
    }
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    QString error;
    for (const QString &name : ctx.state.sandboxNames()) {
        SandboxMeta meta;
        if (ctx.state.readMeta(name, &meta) && meta.status == QLatin1String("running") && !stopSandbox(ctx, &meta, &error))
            return fail(error);
    }
    QFile::remove(marker);
    // An update waiting for this restart is done now.
    QFile restarted(ctx.state.path(QStringLiteral("daemon-restarted")));
    if (restarted.open(QIODevice::WriteOnly))
        restarted.write("restarted\n");
    printOut("Daemon stopped\n");
    return 0;
}

} // namespace fakesbx
