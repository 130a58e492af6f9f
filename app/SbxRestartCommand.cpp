// `chat2sbx sbx restart [--yes]`: after an update Docker Sandboxes asks to restart its daemon, which
// stops every running sandbox. chat2sbx never answers that question by itself; this command is the
// user's explicit way: it names the sandboxes that will stop, brings each running clone sandbox's
// work home first (as `sandbox fetch` does), and restarts the daemon only once the user typed
// "restart" (or gave --yes). Nothing is restarted when a clone's work cannot be brought home.
#include "Command.h"

#include "core/Clock.h"
#include "runtime/Services.h"
#include "sandbox/changes/ChangesService.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxNames.h"
#include "sandbox/sbx/SbxDriver.h"
#include "sandbox/sbx/SbxVersion.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QTextStream>

#include <cstdio>
#include <memory>
#include <unistd.h>

namespace chat2sbx::app {
namespace {

struct Restart {
    CommandContext &ctx;
    Services &cli;
    QList<SandboxView> clones;   // running clone sandboxes: their work comes home first
    QStringList branches;
    int code = 1;
    bool finished = false;

    void finish(int exitCode)
    {
        code = exitCode;
        finished = true;
        QCoreApplication::exit(exitCode);
    }

    void bringHome(qsizetype i)
    {
        if (i >= clones.size())
            return stopDaemon();
        const QString id = clones.at(i).record.id;
        cli.changes->exportWork(id, {}, [this, i, id](const ChangesService::ExportOutcome &o) {
            if (!o.ok)
                return finish(ctx.fail(QStringLiteral("nothing was restarted: the work of clone sandbox %1 could not be brought "
                                                      "home first (%2)").arg(id, o.error)));
            if (!o.nothing)
                branches << QStringLiteral("%1 -> branch %2 in %3").arg(id, o.branch, o.repository);
            bringHome(i + 1);
        });
    }

    void stopDaemon()
    {
        cli.sbx->daemonStop([this](const SbxResult &stopped) {
            if (!stopped.ok)
                return finish(ctx.fail(QStringLiteral("the daemon did not stop: %1").arg(stopped.error)));
            // Any daemon command starts it again, at the installed version.
            cli.sbx->versionJson([this](const SbxResult &started) {
                const QString version = started.ok ? parseSbxVersionJson(started.out) : QString();
                if (ctx.json) {
                    ctx.printJson(QJsonObject{{QStringLiteral("restarted"), true},
                                              {QStringLiteral("version"), version.isEmpty() ? QJsonValue() : QJsonValue(version)},
                                              {QStringLiteral("work_brought_home"), QJsonArray::fromStringList(branches)}});
                } else {
                    QStringList lines{QStringLiteral("Docker Sandboxes' daemon restarted%1.")
                                          .arg(version.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(version))};
                    for (const QString &b : branches)
                        lines << QStringLiteral("  work brought home: %1").arg(b);
                    lines << QStringLiteral("The sandboxes that ran are stopped: files kept, they wake on their next tool call.");
                    ctx.print(lines.join(QLatin1Char('\n')));
                }
                finish(0);
            });
        });
    }
};

int runSbxRestart(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("usage: chat2sbx sbx restart [--yes]"));
    Services cli(ctx.config, Clock::system(), Services::Profile::Cli);
    QString error;
    if (!cli.openDatabase(error))
        return ctx.fail(error);
    Restart restart{ctx, cli, {}, {}, 1, false};
    QStringList stopping;
    for (const SandboxView &v : cli.sandboxes->list()) {
        if (v.record.state != SandboxState::Running)
            continue;
        const bool clone = v.workspace && v.workspace->mode == WorkspaceMode::Clone;
        stopping << QStringLiteral("  %1  %2%3").arg(v.record.id, sandboxShortName(v),
                                                     clone ? QStringLiteral("  (clone: its work is brought home first)") : QString());
        if (clone)
            restart.clones << v;
    }
    const QString what = stopping.isEmpty()
                             ? QStringLiteral("No sandbox of chat2sbx runs now; restarting stops any other running sandbox of sbx.")
                             : QStringLiteral("Restarting Docker Sandboxes' daemon stops these running sandboxes (their files are "
                                              "kept; commands running in them end):\n") + stopping.join(QLatin1Char('\n'));
    if (!ctx.isSet(QStringLiteral("yes"))) {
        if (!::isatty(STDIN_FILENO))
            return ctx.usage(what + QStringLiteral("\nnothing was restarted: run it in a terminal to confirm, or give --yes"));
        ctx.print(what + QStringLiteral("\nType restart to go on: "));
        const QString answer = QTextStream(stdin).readLine().trimmed();
        if (answer != QLatin1String("restart"))
            return ctx.fail(QStringLiteral("nothing was restarted"));
    } else if (!ctx.json) {
        ctx.print(what);
    }
    restart.bringHome(0);
    if (!restart.finished)
        QCoreApplication::exec();
    return restart.code;
}

const bool registered = registerCommand(
    {QStringLiteral("sbx restart"), QStringLiteral("sbx restart [--yes]"),
     QStringLiteral("Restart Docker Sandboxes' daemon after an update asks for it (names what stops, asks first)"), false,
     runSbxRestart, {QCommandLineOption(QStringLiteral("yes"), QStringLiteral("do not ask: restart at once"))}});

} // namespace
} // namespace chat2sbx::app
