// `chat2sbx` / `chat2sbx tray`: the server of `serve` in this process, plus the tray icon and popup.
#include "Command.h"

#include "bindings/ServiceModels.h"
#include "tray/TrayApp.h"
#include "runtime/Controller.h"
#include "runtime/SignalWatcher.h"

#include <QApplication>
#include <QSystemTrayIcon>

#include <cstdio>

namespace chat2sbx::app {
namespace {

int runTray(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("tray takes no arguments (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return ctx.fail(QStringLiteral(
            "no system tray is available on this desktop (platform '%1'), so the tray icon could not be shown.\n"
            "Run the headless server instead:  chat2sbx serve")
                            .arg(QGuiApplication::platformName()));
    QApplication::setQuitOnLastWindowClosed(false);

    Controller controller(ctx.config);
    ui::ServiceModels models = ui::makeServiceModels(controller);
    ui::TrayApp tray(*models.approvals, *models.sandboxes, *models.status,
                     ui::TrayPaths{ctx.config.dataRoot, ctx.config.agentsFilePath(), QCoreApplication::applicationFilePath()});
    tray.setActivityModel(*models.activity);
    tray.addWorkspaces(*models.workspaces);
    tray.addNetwork(*models.network);
    SignalWatcher signalWatcher;
    int exitCode = 0;
    bool stopping = false;
    auto stop = [&] {
        if (stopping)
            return;
        stopping = true;
        if (controller.state() == Controller::State::Stopped)
            QCoreApplication::exit(exitCode);
        else
            controller.stop(Controller::Ending::Process);   // exits on stopped(), exactly as serve does
    };

    QObject::connect(&controller, &Controller::started, [&] {
        logLine(QStringLiteral("chat2sbx %1 tray: serving MCP on %2 (%3)")
                    .arg(QStringLiteral(CHAT2SBX_VERSION), ctx.config.mcpUrl(),
                         ctx.config.enableTunnel ? QStringLiteral("tunnel enabled") : QStringLiteral("local-only")));
    });
    // A failed start keeps the tray up in the error state (the popup says why); Quit still works.
    QObject::connect(&controller, &Controller::failed, [&](const QString &reason) {
        ctx.fail(reason);
        exitCode = 1;
        tray.trayIcon().showMessage(QStringLiteral("chat2sbx could not start"), reason, QSystemTrayIcon::Critical, 15000);
    });
    QObject::connect(&controller, &Controller::stopped, [&] {
        if (stopping)
            QCoreApplication::exit(exitCode);
    });
    QObject::connect(&tray, &ui::TrayApp::quitRequested, stop);
    QObject::connect(&signalWatcher, &SignalWatcher::terminationRequested, [&](int sig) {
        logLine(QStringLiteral("chat2sbx: signal %1 received, shutting down").arg(sig));
        stop();
    });

    tray.show();
    controller.start();
    return QCoreApplication::exec();
}

const bool registered = registerCommand({QStringLiteral("tray"), QStringLiteral("tray"),
                                         QStringLiteral("Start the tray application (the default)"), true, runTray});

} // namespace
} // namespace chat2sbx::app
