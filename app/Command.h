#pragma once

#include "config/Config.h"

#include <QCommandLineOption>
#include <QJsonValue>
#include <QHash>
#include <QStringList>

#include <functional>

namespace chat2sbx::app {

// What a command gets: its own arguments (after the command words), output mode and configuration.
struct CommandContext {
    QStringList args;        // positional arguments after the command words
    bool json = false;
    Config config;
    QHash<QString, QString> options;   // the command's own options given, by long name (value or empty)

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

struct CommandSpec {
    QString name;          // "status", "workspace list", ...
    QString usage;         // "workspace add <path> [--mode clone|direct]"
    QString summary;
    bool needsGui = false;
    std::function<int(CommandContext &)> run;
    QList<QCommandLineOption> options = {};   // besides the global --json / --help / --version
};

// One line to stderr, as-is (progress and log lines of long-running commands).
void logLine(const QString &text);

// Commands register themselves from their own file (see e.g. StatusCommand.cpp).
bool registerCommand(const CommandSpec &spec);
const QList<CommandSpec> &commands();

} // namespace chat2sbx::app
