// sbx exec [-i] [-u <user>] [-e NAME[=VALUE]]... [-w DIR] <runtime> <cmd> [args...]
// Replaces this process with the command (inside bubblewrap when available), so stdio and the
// exit code pass straight through.
#pragma once

#include <QString>
#include <QStringList>

namespace fakesbx {

struct ExecRequest
{
    bool interactive = false;
    QString user;          // empty: the sandbox user
    QStringList env;       // -e values as given
    QString workdir;       // empty: the workspace
    QString runtime;
    QStringList command;
};

// The second half of exec, once the sandbox runs: the environment, bubblewrap, stdin, then execve
// (returns only when that fails). `proxyPort` 0: no policy proxy.
struct Context;
struct SandboxMeta;
int execInSandbox(const Context &ctx, const SandboxMeta &meta, const ExecRequest &req, int proxyPort);

// Returns false with *error ("unknown flag: -x") or *usage set when the command line is malformed.
bool parseExecArgs(const QStringList &args, ExecRequest *req, QString *error, bool *usage);

// The bubblewrap binary to use, or empty: found on PATH, FAKE_SBX_NO_BWRAP unset, and the probe
// `bwrap --ro-bind / / --dev /dev --proc /proc true` succeeded (cached in $FAKE_SBX_STATE/bwrap-probe).
QString usableBwrap(const QString &probeCacheFile, bool disabled);

} // namespace fakesbx
