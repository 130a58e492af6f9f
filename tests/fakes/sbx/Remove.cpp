// sbx rm --force <runtime>: kills the sandbox's processes, deletes its directory and, for a clone
// sandbox, the host repository's remote sandbox-<runtime>.
#include "Args.h"
#include "Clone.h"
#include "Commands.h"
#include "FsOps.h"
#include "ProcessKiller.h"

namespace fakesbx {

int cmdRemove(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--force")}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (!parsed.has(QStringLiteral("--force")) || parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx rm --force <sandbox>"));
    const QString name = parsed.positional.first();
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    SandboxMeta meta;
    if (!ctx.state.readMeta(name, &meta))
        return fail(QStringLiteral("sandbox '%1' not found").arg(name));
    killSandboxProcesses(name);
    if (meta.clone && !meta.workspace.isEmpty())
        removeHostRemote(name, meta.workspace);
    QString error;
    if (!removeTree(ctx.state.sandboxDir(name), &error))
        return fail(error);
    return 0;
}

} // namespace fakesbx
