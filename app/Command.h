#pragma once

#include "config/Config.h"

#include <QCommandLineOption>
#include <QJsonValue>
#include <QHash>
#include <QStringList>

#include <functional>

namespace chat2sbx {
struct Services;
}

namespace chat2sbx::app {

// What a command gets: its own arguments (after the command words), output mode and configuration.
struct CommandContext {
    QStringList args;        // positional arguments after the command words
    bool json = false;
    Config config;
    QHash<QString, QString> options;   // the command's own options given, by long name (value or empty)

    // Where the output goes when not to this process's stdout and stderr: a verb run by the server
    // for a CLI on its control channel writes its text into the reply (`error`: stderr).
    std::function<void(const QByteArray &bytes, bool error)> sink = {};
    // The directory the user ran the command in (a relative path is relative to it); empty: this
    // process's.
    QString workingDirectory = {};
    QString currentDirectory() const;
    // Set when the running server acts on the verb: its tunnel connects again with the credentials
    // stored now (`tunnel import`). Empty when the CLI acts itself (the next server reads them).
    std::function<void()> reconnectTunnel = {};

    bool isSet(const QString &option) const { return options.contains(option); }
    QString value(const QString &option) const { return options.value(option); }

    // Human text to stdout. Human output: agent text in it cannot move the cursor, retitle the terminal or reorder what the
    // user reads (core/LogText.h terminalSafe); printJson keeps values exact and escapes the same.
    void print(const QString &text) const;
    // One JSON document to stdout (for --json).
    void printJson(const QJsonValue &value) const;
    // One clear line to stderr; returns the exit code to use (1).
    int fail(const QString &message) const;
    // The same for a usage error (wrong arguments); returns 2.
    int usage(const QString &message) const;

private:
    void writeOut(const QString &text) const;
};

// A verb that changes state, run against one set of services: the running server's (the CLI sent it
// over the control channel) or the CLI's own while no server runs. It may finish later; `done`
// takes the exit code, once.
using VerbAction = std::function<void(CommandContext &ctx, Services &services, std::function<void(int code)> done)>;

struct CommandSpec {
    QString name;          // "status", "workspace list", ...
    QString usage;         // "workspace add <path> [--mode clone|direct]"
    QString summary;
    bool needsGui = false;
    std::function<int(CommandContext &)> run;   // null for a verb: its run is made from `act`
    QList<QCommandLineOption> options = {};   // besides the global --json / --help / --version
    VerbAction act = {};   // a verb that changes state: one owner acts on it (app/OwnedVerb.h)
    bool networkServices = false;   // acting without a server, it needs NetworkAccess (the network verbs)
};

// One line to stderr, as-is (progress and log lines of long-running commands).
void logLine(const QString &text);

// Commands register themselves from their own file (see e.g. StatusCommand.cpp).
bool registerCommand(const CommandSpec &spec);
const QList<CommandSpec> &commands();
const CommandSpec *findCommand(const QString &name);

} // namespace chat2sbx::app
