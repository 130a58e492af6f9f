// Entry points of the fake's subcommands. Each receives the arguments after the subcommand name
// and returns the process exit code (exec does not return when it starts the command).
#pragma once

#include "FakeState.h"
#include "Faults.h"

#include <QString>
#include <QStringList>

namespace fakesbx {

struct Context
{
    StateDir state;
    Faults faults;
    QString selfExe;  // this binary, for the port forwarder
};

int cmdVersion(const Context &ctx, const QStringList &args);
int cmdTemplate(const Context &ctx, const QStringList &args);
int cmdCreate(const Context &ctx, const QStringList &args);
int cmdList(const Context &ctx, const QStringList &args);
int cmdExec(const Context &ctx, const QStringList &args);
int cmdPorts(const Context &ctx, const QStringList &args);
int cmdRemove(const Context &ctx, const QStringList &args);
int cmdStop(const Context &ctx, const QStringList &args);
int cmdPolicy(const Context &ctx, const QStringList &args);
int cmdDaemon(const Context &ctx, const QStringList &args);
int cmdMove(const Context &ctx, const QStringList &args);

// Prints "<why>" and the usage line on stderr; returns 2.
int usageError(const QString &why);
// Prints one line on stderr; returns 1.
int fail(const QString &message);
void printOut(const QByteArray &text);

} // namespace fakesbx
