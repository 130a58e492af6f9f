// chat2sbx: one binary for the tray, the headless server and the command line.
#include "Command.h"

#include "config/ConfigLoader.h"
#include "core/WorkingMemory.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QMessageBox>
#include <QSet>

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

// The help of one command: its usage line, summary and own options.
QString commandHelp(const CommandSpec &c)
{
    QString text = QStringLiteral("Usage: chat2sbx %1\n\n%2\n").arg(c.usage, c.summary);
    if (!c.options.isEmpty()) {
        text += QStringLiteral("\nOptions:\n");
        for (const QCommandLineOption &o : c.options) {
            QString name = QStringLiteral("--") + o.names().constLast();
            if (!o.valueName().isEmpty())
                name += QStringLiteral(" <%1>").arg(o.valueName());
            text += QStringLiteral("  %1  %2\n").arg(name.leftJustified(22), o.description());
        }
    }
    return text;
}

// "workspace" -> the commands named "workspace ...", for a group given without its subcommand.
QList<CommandSpec> groupMembers(const QStringList &words)
{
    QList<CommandSpec> out;
    if (words.isEmpty())
        return out;
    for (const CommandSpec &c : commands()) {
        const QStringList parts = c.name.split(QLatin1Char(' '));
        if (parts.size() > words.size() && parts.mid(0, words.size()) == words)
            out << c;
    }
    std::sort(out.begin(), out.end(), [](const CommandSpec &a, const CommandSpec &b) { return a.name < b.name; });
    return out;
}

QString groupHelp(const QString &group, const QList<CommandSpec> &members)
{
    QString text = QStringLiteral("Usage: chat2sbx %1 <command>\n\nCommands:\n").arg(group);
    int width = 0;
    for (const CommandSpec &c : members)
        width = qMax(width, static_cast<int>(c.usage.size()));
    for (const CommandSpec &c : members)
        text += QStringLiteral("  %1  %2\n").arg(c.usage.leftJustified(width), c.summary);
    text += QStringLiteral("\nchat2sbx %1 <command> --help shows the options of one command.\n").arg(group);
    return text;
}

// A GUI command needs a display server; Qt would otherwise abort with a core dump. The offscreen and
// minimal platforms (tests, screenshots) need none.
bool hasGraphicalSession()
{
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (platform.startsWith("offscreen") || platform.startsWith("minimal"))
        return true;
    return !qgetenv("DISPLAY").isEmpty() || !qgetenv("WAYLAND_DISPLAY").isEmpty();
}

void showConfigError(const QString &error)
{
    QMessageBox box(QMessageBox::Critical, QStringLiteral("chat2sbx cannot start"),
                    QStringLiteral("chat2sbx cannot start: its configuration is refused."));
    box.setInformativeText(error + QStringLiteral("\n\nFix the setting (in config.json or the CHAT2SBX_* variable it names), "
                                                  "then start chat2sbx again. `chat2sbx status` checks it from a terminal."));
    box.setObjectName(QStringLiteral("configError"));
    box.exec();
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
    keepWorkingMemory();

    QStringList arguments;
    for (int i = 0; i < argc; ++i)
        arguments << QString::fromLocal8Bit(argv[i]);

    // One parser for every command: the global options plus each command's own (checked below to
    // belong to the command that was given). parse() needs no QCoreApplication, which is created
    // only once the command says whether it needs a GUI.
    QCommandLineParser parser;
    const QCommandLineOption jsonOption(QStringLiteral("json"));
    const QCommandLineOption serveOption(QStringLiteral("serve"));
    const QCommandLineOption helpOption(QStringList{QStringLiteral("h"), QStringLiteral("help")});
    const QCommandLineOption versionOption(QStringList{QStringLiteral("v"), QStringLiteral("version")});
    parser.addOptions({jsonOption, serveOption, helpOption, versionOption});
    // Commands may share an option name (e.g. --all): it is declared once, each command reads it.
    QSet<QString> declared;
    for (const CommandSpec &c : commands())
        for (const QCommandLineOption &o : c.options) {
            if (declared.contains(o.names().constFirst()))
                continue;
            for (const QString &name : o.names())
                declared.insert(name);
            parser.addOption(o);
        }
    if (!parser.parse(arguments))
        return usageError(parser.errorText());
    if (parser.isSet(versionOption)) {
        printOut(QStringLiteral("chat2sbx %1\n").arg(QStringLiteral(CHAT2SBX_VERSION)));
        return 0;
    }
    QStringList words = parser.positionalArguments();
    const bool helpWord = !words.isEmpty() && words.first() == QLatin1String("help");
    if (helpWord)
        words.removeFirst();
    const bool wantsHelp = parser.isSet(helpOption) || helpWord;
    if (wantsHelp && words.isEmpty()) {
        printOut(helpText());
        return 0;
    }
    if (parser.isSet(serveOption)) {
        if (!words.isEmpty())
            return usageError(QStringLiteral("--serve is the serve command; it cannot be combined with '%1'").arg(words.join(QLatin1Char(' '))));
        words << QStringLiteral("serve");
    }

    // Longest registered command name that prefixes the words wins ("workspace add" over "workspace").
    const CommandSpec *spec = nullptr;
    int consumed = 0;
    const QStringList effective = words.isEmpty() ? QStringList{QStringLiteral("tray")} : words;
    for (const CommandSpec &c : commands()) {
        const QStringList parts = c.name.split(QLatin1Char(' '));
        if (parts.size() > effective.size() || parts.size() <= consumed)
            continue;
        if (effective.mid(0, parts.size()) == parts) {
            spec = &c;
            consumed = static_cast<int>(parts.size());
        }
    }
    // A group word alone ("workspace"), or with --help: list its commands.
    const QList<CommandSpec> members = groupMembers(effective.mid(0, qMax(consumed, 1)));
    if (!spec && !members.isEmpty() && effective.size() == 1) {
        if (wantsHelp) {
            printOut(groupHelp(effective.first(), members));
            return 0;
        }
        const QByteArray b = groupHelp(effective.first(), members).toUtf8();
        std::fwrite(b.constData(), 1, static_cast<size_t>(b.size()), stderr);
        return 2;
    }
    if (!spec)
        return usageError(QStringLiteral("unknown command '%1'").arg(effective.join(QLatin1Char(' '))));
    if (wantsHelp) {
        printOut(commandHelp(*spec));
        return 0;
    }

    CommandContext ctx;
    ctx.json = parser.isSet(jsonOption);
    ctx.args = effective.mid(consumed);
    const QStringList globalNames = jsonOption.names() + serveOption.names() + helpOption.names() + versionOption.names();
    for (const QString &name : parser.optionNames()) {
        if (globalNames.contains(name))
            continue;
        const auto own = std::find_if(spec->options.begin(), spec->options.end(),
                                      [&name](const QCommandLineOption &o) { return o.names().contains(name); });
        if (own == spec->options.end())
            return usageError(QStringLiteral("--%1 is not an option of %2").arg(name, spec->name));
        ctx.options.insert(own->names().constLast(), own->valueName().isEmpty() ? QString() : parser.value(name));
    }

    if (spec->needsGui && !hasGraphicalSession()) {
        const QByteArray line = "no graphical session (DISPLAY/WAYLAND_DISPLAY unset): use chat2sbx serve\n";
        std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stderr);
        return 2;
    }
    std::unique_ptr<QCoreApplication> app;
    if (spec->needsGui)
        app = std::make_unique<QApplication>(argc, argv);
    else
        app = std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("chat2sbx"));
    QCoreApplication::setOrganizationName(QStringLiteral("chat2sbx"));
    QCoreApplication::setApplicationVersion(QStringLiteral(CHAT2SBX_VERSION));

    QString error;
    if (!ConfigLoader::loadFromProcess(ctx.config, error)) {
        // The tray usually starts from the desktop or at login, with no terminal to read stderr:
        // the reason goes on screen too, instead of the tray vanishing without a word.
        if (spec->needsGui)
            showConfigError(error);
        return ctx.usage(error);
    }
    return spec->run(ctx);
}
