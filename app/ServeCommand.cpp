// `chat2sbx serve`: the headless server in the foreground; SIGINT/SIGTERM stop it cleanly.
#include "Command.h"

#include "runtime/Controller.h"
#include "runtime/SignalWatcher.h"

#include <QCoreApplication>

#include <cstdio>

namespace chat2sbx::app {
namespace {

int runServe(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("serve takes no arguments (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));

    Controller controller(ctx.config);
    SignalWatcher signalWatcher;
    int exitCode = 0;
    bool stopping = false;

    QObject::connect(&controller, &Controller::started, [&] {
        logLine(QStringLiteral("chat2sbx %1 serving MCP on http://%2:%3/mcp (%4)")
                    .arg(QStringLiteral(CHAT2SBX_VERSION), ctx.config.host)
                    .arg(controller.listeningPort())
                    .arg(ctx.config.enableTunnel ? QStringLiteral("tunnel enabled") : QStringLiteral("local-only")));
    });
    QObject::connect(&controller, &Controller::failed, [&](const QString &reason) {
        ctx.fail(reason);
        exitCode = 1;
        if (!stopping) {
            stopping = true;
            controller.stop(Controller::Ending::Process);
        }
    });
    QObject::connect(&controller, &Controller::stopped, [&] { QCoreApplication::exit(exitCode); });
    QObject::connect(&signalWatcher, &SignalWatcher::terminationRequested, [&](int sig) {
        if (stopping)
            return;
        stopping = true;
        logLine(QStringLiteral("chat2sbx: signal %1 received, shutting down").arg(sig));
        controller.stop(Controller::Ending::Process);
    });

    controller.start();
    return QCoreApplication::exec();
}

const bool registered = registerCommand({QStringLiteral("serve"), QStringLiteral("serve"),
                                         QStringLiteral("Run the MCP server (and tunnel client) in the foreground"),
                                         false, runServe});

} // namespace
} // namespace chat2sbx::app
