// Test double of Docker Sandboxes' `sbx` CLI for chat2sbx. See README.md.
#include "CallLog.h"
#include "Cloud.h"
#include "Commands.h"
#include "Daemon.h"
#include "Faults.h"
#include "FieldFaults.h"
#include "Lifecycle.h"
#include "PolicyProxy.h"
#include "PortForwarder.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <cstdio>

namespace fakesbx {

int usageError(const QString &why)
{
    std::fprintf(stderr, "%s\n", why.toLocal8Bit().constData());
    std::fprintf(stderr, "usage: sbx version | template ls --json | template save <sandbox> <repo:tag> | template rm <repo:tag> | "
                         "create ... shell <workspace> | ls --json | exec ... <sandbox> <cmd> | "
                         "ports <sandbox> --json|--publish <spec> | stop <sandbox> | rm --force <sandbox> | "
                         "policy allow|deny|rm|ls|log|check|approval|init ... | daemon stop|status\n");
    return 2;
}

int fail(const QString &message)
{
    std::fprintf(stderr, "%s\n", message.toLocal8Bit().constData());
    return 1;
}

void printOut(const QByteArray &text)
{
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stdout);
    std::fflush(stdout);
}

} // namespace fakesbx

using namespace fakesbx;

int main(int argc, char **argv)
{
    QStringList args;
    for (int i = 1; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    if (!args.isEmpty() && args.first() == QLatin1String("__forward"))
        return runForwarder(argc, argv, args);
    if (!args.isEmpty() && args.first() == QLatin1String("__proxy"))
        return runProxy(argc, argv, args);
    if (!args.isEmpty() && args.first() == QLatin1String("__idle-watch"))
        return runIdleWatcher(args);

    const QString stateRoot = qEnvironmentVariable("FAKE_SBX_STATE");
    if (stateRoot.isEmpty()) {
        std::fprintf(stderr, "fake sbx: FAKE_SBX_STATE is not set\n");
        return 2;
    }
    Context ctx{StateDir(stateRoot), Faults(), QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget()};
    QString error;
    if (!ctx.state.ensure(&error)) {
        std::fprintf(stderr, "%s\n", error.toLocal8Bit().constData());
        return 1;
    }
    appendCall(ctx.state.path(QStringLiteral("calls.log")), args);
    ctx.faults = Faults::load(ctx.state.path(QStringLiteral("faults.env")));
    applyHangs(ctx);
    if (args.isEmpty())
        return usageError(QStringLiteral("sbx: no command given"));
    const QString command = args.first();
    const QStringList rest = args.mid(1);
    const QString key = commandKey(args);
    // Every known command but `version` and `daemon ...` talks to the daemon: it may start it, and
    // needs sign-in.
    const bool daemon = !key.isEmpty() && key != QLatin1String("VERSION") && !key.startsWith(QLatin1String("DAEMON_"));
    if (daemon)
        announceDaemonStart(ctx);
    if (!key.isEmpty()) {
        const int rc = applyCommandFaults(ctx.faults, key);
        if (rc >= 0)
            return rc;
    }
    if (daemon) {
        const int rc = requireSignedIn(ctx);
        if (rc >= 0)
            return rc;
        if (const int field = applyDaemonFaults(ctx, key); field >= 0)
            return field;
        // Real sbx on a headless Linux host reads its credentials from a file-based secret store
        // on every command: about 2.8 s each (sbx-releases#456, v0.38).
        if (const long delay = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_COMMAND_DELAY_MS"), 2800); delay > 0)
            sleepMs(delay);
    }
    if (command == QLatin1String("exec"))
        return cmdExec(ctx, rest);  // before QCoreApplication: the process is replaced
    if (command == QLatin1String("--cloud") && !rest.isEmpty() && rest.first() == QLatin1String("exec"))
        return cmdCloud(ctx, rest);

    QCoreApplication app(argc, argv);
    if (command == QLatin1String("--cloud"))
        return cmdCloud(ctx, rest);
    if (command == QLatin1String("version"))
        return cmdVersion(ctx, rest);
    if (command == QLatin1String("template"))
        return cmdTemplate(ctx, rest);
    if (command == QLatin1String("create"))
        return cmdCreate(ctx, rest);
    if (command == QLatin1String("ls"))
        return cmdList(ctx, rest);
    if (command == QLatin1String("ports"))
        return cmdPorts(ctx, rest);
    if (command == QLatin1String("rm"))
        return cmdRemove(ctx, rest);
    if (command == QLatin1String("stop"))
        return cmdStop(ctx, rest);
    if (command == QLatin1String("policy"))
        return cmdPolicy(ctx, rest);
    if (command == QLatin1String("daemon"))
        return cmdDaemon(ctx, rest);
    if (command == QLatin1String("move"))
        return cmdMove(ctx, rest);
    return usageError(QStringLiteral("sbx: unknown command \"%1\"").arg(command));
}
