// chat2sbx: one binary for the tray, the headless server and the command line.
#include "Command.h"

#include "config/ConfigLoader.h"

#include <QApplication>
#include <QCoreApplication>

#include <algorithm>
#include <cstdio>
#include <memory>

#include <sys/stat.h>

using namespace chat2sbx;
using namespace chat2sbx::app;

namespace {

QString helpText()
{
    QString text = QStringLiteral(
        "Usage: chat2sbx [command] [options]\n\n"
        "Give ChatGPT a computer you can safely throw away: an MCP server that runs ChatGPT's\n"
        "shell and file tools inside disposable Docker Sandboxes microVMs.\n\n"
        "Commands:\n");
    QList<CommandSpec> sorted = commands();
    std::sort(sorted.begin(), sorted.end(), [](const CommandSpec &a, const CommandSpec &b) { return a.name < b.name; });
    int width = 0;
    for (const CommandSpec &c : sorted)
        width = qMax(width, static_cast<int>(c.usage.size()));
    for (const CommandSpec &c : sorted)
        text += QStringLiteral("  %1  %2\n").arg(c.usage.leftJustified(width), c.summary);
    text += QStringLiteral(
        "\nOptions:\n"
        "  --json       machine-readable output (status, list commands)\n"
        "  --serve      same as the serve command\n"
        "  -h, --help   show this help\n"
        "  --version    show the version\n\n"
        "Without a command, chat2sbx starts the tray application.\n"
        "Configuration: defaults < ~/.chat2sbx/config.json < CHAT2SBX_* environment (see .env.example).\n");
    return text;
}

void printOut(const QString &text)
{
    const QByteArray b = text.toUtf8();
    std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stdout);
}

int usageError(const QString &message)
{
    const QByteArray b = (QStringLiteral("chat2sbx: ") + message + QStringLiteral(" (see chat2sbx --help)\n")).toUtf8();
    std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stderr);
    return 2;
}

} // namespace

int main(int argc, char *argv[])
{
    ::umask(077);

    QStringList words;
    for (int i = 1; i < argc; ++i)
        words << QString::fromLocal8Bit(argv[i]);

    bool json = false;
    QStringList rest;
    for (const QString &w : words) {
        if (w == QLatin1String("--json"))
            json = true;
        else if (w == QLatin1String("--serve"))
            rest << QStringLiteral("serve");
        else
            rest << w;
    }
    if (rest.contains(QLatin1String("--version")) || rest.contains(QLatin1String("-v"))) {
        printOut(QStringLiteral("chat2sbx %1\n").arg(QStringLiteral(CHAT2SBX_VERSION)));
        return 0;
    }
    if (rest.contains(QLatin1String("--help")) || rest.contains(QLatin1String("-h")) ||
        (!rest.isEmpty() && rest.first() == QLatin1String("help"))) {
        printOut(helpText());
        return 0;
    }

    // Longest registered command name that prefixes the words wins ("workspace add" over "workspace").
    const CommandSpec *spec = nullptr;
    int consumed = 0;
    const QStringList effective = rest.isEmpty() ? QStringList{QStringLiteral("tray")} : rest;
    for (const CommandSpec &c : commands()) {
        const QStringList parts = c.name.split(QLatin1Char(' '));
        if (parts.size() > effective.size() || parts.size() <= consumed)
            continue;
        if (effective.mid(0, parts.size()) == parts) {
            spec = &c;
            consumed = static_cast<int>(parts.size());
        }
    }
    if (!spec) {
        if (!effective.isEmpty() && effective.first().startsWith(QLatin1Char('-')))
            return usageError(QStringLiteral("unknown option %1").arg(effective.first()));
        return usageError(QStringLiteral("unknown command '%1'").arg(effective.join(QLatin1Char(' '))));
    }

    std::unique_ptr<QCoreApplication> app;
    if (spec->needsGui)
        app = std::make_unique<QApplication>(argc, argv);
    else
        app = std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("chat2sbx"));
    QCoreApplication::setOrganizationName(QStringLiteral("chat2sbx"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CHAT2SBX_VERSION));

    CommandContext ctx;
    ctx.json = json;
    ctx.args = effective.mid(consumed);
    QString error;
    if (!ConfigLoader::loadFromProcess(ctx.config, error))
        return ctx.fail(error) + 1;
    return spec->run(ctx);
}
