// Fake `tunnel-client` (OpenAI Secure MCP Tunnel client) for chat2sbx tests. See README.md.
#include "DoctorCommand.h"
#include "FlagSet.h"
#include "Log.h"
#include "RunCommand.h"

#include <QCoreApplication>
#include <QStringList>

#include <cstdio>

namespace {

const char kVersion[] = "0.0.13-dev (git sha: fake)";

const char kRootUsage[] =
    "tunnel-client (fake for chat2sbx tests)\n\n"
    "Usage:\n"
    "  tunnel-client run [flags]\n"
    "  tunnel-client doctor [--explain] [--json] [flags]\n"
    "  tunnel-client version | --version\n"
    "  tunnel-client help\n";

bool isRealButNotEmulated(const QString &command)
{
    static const QStringList commands = {"init", "health", "cloudflared", "dev", "codex", "profiles",
                                         "admin-profiles", "runtimes", "plugin", "admin", "completion"};
    return commands.contains(command);
}

} // namespace

int main(int argc, char **argv)
{
    QStringList rawArgv;
    for (int i = 0; i < argc; ++i)
        rawArgv << QString::fromLocal8Bit(argv[i]);

    QCoreApplication app(argc, argv);
    const QStringList args = rawArgv.mid(1);
    const QString command = args.value(0);

    if (command == QLatin1String("--version") || command == QLatin1String("-v")
        || command == QLatin1String("version")) {
        std::printf("%s\n", kVersion);
        return 0;
    }
    if (command.isEmpty() || command == QLatin1String("help") || command == QLatin1String("--help")
        || command == QLatin1String("-h")) {
        std::fputs(kRootUsage, stdout);
        return 0;
    }
    if (command == QLatin1String("run"))
        return faketunnel::runCommand(app, rawArgv, args.mid(1));
    const bool noDoctor = !qEnvironmentVariable("FAKE_TUNNEL_NO_DOCTOR").isEmpty()
                          && qEnvironmentVariable("FAKE_TUNNEL_NO_DOCTOR") != QLatin1String("0");
    if (command == QLatin1String("doctor") && !noDoctor)
        return faketunnel::doctorCommand(args.mid(1));
    // Every error exits 1, as cobra errors do in cmd/client/main.go.
    if (command.startsWith(QLatin1Char('-'))) {
        const QString name = command.section(QLatin1Char('='), 0, 0);
        faketunnel::logAlways(QStringLiteral("Error: unknown flag: %1").arg(name));
        return 1;
    }
    if (isRealButNotEmulated(command)) {
        faketunnel::logAlways(QStringLiteral("Error: command \"%1\" is not emulated by the fake").arg(command));
        return 1;
    }
    faketunnel::logAlways(QStringLiteral("Error: unknown command \"%1\" for \"tunnel-client\"\nRun 'tunnel-client --help' for usage.").arg(command));
    return 1;
}
