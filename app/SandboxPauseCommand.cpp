// `chat2sbx sandbox pause <id> [--end-running-commands]`: the sandbox's VM stops, its files are kept,
// the next tool call wakes it (the tray's Pause). Commands still running are named and the pause
// refused unless --end-running-commands. A verb (app/OwnedVerb): a running server pauses it.
#include "Command.h"

#include "core/Ids.h"
#include "runtime/Services.h"
#include "sandbox/lifecycle/SandboxService.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

void pause(CommandContext &ctx, Services &services, std::function<void(int)> done)
{
    if (ctx.args.size() != 1)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx sandbox pause <sandbox id> [--end-running-commands]")));
    const QString id = ctx.args.first();
    if (!isWellFormedId(id, "sbx_"))
        return done(ctx.fail(QStringLiteral("'%1' is not a sandbox id (sbx_ followed by 24 hex digits)").arg(id)));
    PauseRequest request;
    request.sandboxId = id;
    request.running = ctx.isSet(QStringLiteral("end-running-commands")) ? RunningCommands::MayEnd : RunningCommands::Refuse;
    services.sandboxes->pause(request, [&ctx, id, done](const PauseOutcome &o) {
        if (!o.ok) {
            if (ctx.json && !o.runningCommands.isEmpty())
                ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id},
                                          {QStringLiteral("paused"), false},
                                          {QStringLiteral("running_commands"), QJsonArray::fromStringList(o.runningCommands)}});
            return done(ctx.fail(o.error));
        }
        if (ctx.json) {
            ctx.printJson(QJsonObject{{QStringLiteral("sandbox_id"), id},
                                      {QStringLiteral("paused"), true},
                                      {QStringLiteral("already_paused"), o.alreadyPaused},
                                      {QStringLiteral("commands_ended"), o.commandsEnded}});
        } else if (o.alreadyPaused) {
            ctx.print(QStringLiteral("sandbox %1 is paused already (the next tool call wakes it)").arg(id));
        } else {
            ctx.print(QStringLiteral("sandbox %1 is paused: its VM is stopped, its files are kept, and the next tool call "
                                     "wakes it%2")
                          .arg(id, o.commandsEnded > 0 ? QStringLiteral(" (%1 running command(s) ended)").arg(o.commandsEnded)
                                                       : QString()));
        }
        done(0);
    });
}

const bool registered = registerCommand(
    {QStringLiteral("sandbox pause"), QStringLiteral("sandbox pause <id> [--end-running-commands]"),
     QStringLiteral("Pause a sandbox: its VM stops, its files are kept, the next tool call wakes it"), false, nullptr,
     {QCommandLineOption(QStringLiteral("end-running-commands"), QStringLiteral("commands still running in the sandbox may end"))},
     pause});

} // namespace
} // namespace chat2sbx::app
