// sbx stop <runtime>: every process of the sandbox dies, its files stay (sbx-contract.md, stop row).
#include "Args.h"
#include "Commands.h"
#include "Lifecycle.h"

namespace fakesbx {

int cmdStop(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {}, {});
    if (!parsed.ok)
        return fail(parsed.error);
    if (parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx stop <sandbox>"));
    const QString name = parsed.positional.first();
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    SandboxMeta meta;
    if (!ctx.state.readMeta(name, &meta))
        return fail(QStringLiteral("sandbox '%1' not found").arg(name));
    QString error;
    if (!stopSandbox(ctx, &meta, &error))
        return fail(error);
    return 0;
}

} // namespace fakesbx
