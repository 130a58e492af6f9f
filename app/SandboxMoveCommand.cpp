// `chat2sbx sandbox move <id> --to cloud|local [--ttl 2h] [--end-running-commands]`: the sandbox goes
// between this computer and Docker's cloud under the same id (SandboxMover; the tray's "Continue in
// the cloud" / "Bring back to this computer"). A verb (app/OwnedVerb): a running server moves it.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/changes/SandboxMover.h"
#include "sandbox/sbx/SbxCloud.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void moveSandbox(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    const QString usage = QStringLiteral("usage: chat2sbx sandbox move <sandbox id> --to cloud|local [--ttl 2h] [--end-running-commands]");
    if (ctx.args.size() != 1)
        return done(ctx.usage(usage));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id)));
    const QString to = ctx.value(QStringLiteral("to"));
    if (to != QLatin1String("cloud") && to != QLatin1String("local"))
        return done(ctx.usage(usage));
    MoveRequest request;
    request.sandboxId = id;
    request.toCloud = to == QLatin1String("cloud");
    request.endRunningCommands = ctx.isSet(QStringLiteral("end-running-commands"));
    if (const QString ttl = ctx.value(QStringLiteral("ttl")); !ttl.isEmpty()) {
        if (!request.toCloud)
            return done(ctx.fail(QStringLiteral("--ttl is for a move to the cloud")));
        if ((request.ttlSeconds = sbxDurationSeconds(ttl)) <= 0)
            return done(ctx.fail(QStringLiteral("--ttl \"%1\" is not a duration such as 30m, 2h or 1h30m").arg(ttl)));
    }
    if (!ctx.json)
        ctx.print(QStringLiteral("moving sandbox %1 %2 (this takes minutes for a large sandbox)…")
                      .arg(id, request.toCloud ? QStringLiteral("to Docker's cloud") : QStringLiteral("to this computer")));
    services.mover->move(request, [&ctx, id, done](const MoveOutcome &o) {
        if (!o.ok)
            return done(ctx.fail(o.error));
        if (ctx.json) {
            ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id},
                                      {QStringLiteral("moved_to"), o.placement},
                                      {QStringLiteral("took_ms"), double(o.tookMs)},
                                      {QStringLiteral("carried"), QJsonArray::fromStringList(o.carried)},
                                      {QStringLiteral("left_behind"), QJsonArray::fromStringList(o.leftBehind)},
                                      {QStringLiteral("warnings"), QJsonArray::fromStringList(o.warnings)}});
            return done(0);
        }
        ctx.print(QStringLiteral("sandbox %1 now runs %2 under the same id (%3 s)")
                      .arg(id, o.placement == QLatin1String("cloud") ? QStringLiteral("in Docker's cloud") : QStringLiteral("on this computer"))
                      .arg(double(o.tookMs) / 1000, 0, 'f', 1));
        for (const QString &w : o.warnings)
            ctx.print(QStringLiteral("  sbx warned: ") + w);
        for (const QString &l : o.leftBehind)
            ctx.print(QStringLiteral("  left behind: ") + l);
        done(0);
    });
}

const bool registered = registerCommand(
    {QStringLiteral("sandbox move"), QStringLiteral("sandbox move <id> --to cloud|local [--ttl 2h] [--end-running-commands]"),
     QStringLiteral("Move a sandbox between this computer and Docker's cloud, keeping its id"), false, nullptr,
     {QCommandLineOption(QStringLiteral("to"), QStringLiteral("cloud or local"), QStringLiteral("where")),
      QCommandLineOption(QStringLiteral("ttl"), QStringLiteral("to the cloud: how long it may live there (30m, 2h; at most 24h)"),
                         QStringLiteral("duration")),
      QCommandLineOption(QStringLiteral("end-running-commands"), QStringLiteral("commands still running in the sandbox may end"))},
     moveSandbox});

} // namespace
} // namespace chat2sbx::app
