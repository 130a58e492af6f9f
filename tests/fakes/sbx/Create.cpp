// sbx create --quiet --name <runtime> [--template <repo:tag>] [--memory <N[kmg]>] [--clone] shell <root>
#include "Args.h"
#include "Clone.h"
#include "Commands.h"
#include "FieldFaults.h"
#include "Daemon.h"
#include "Lifecycle.h"
#include "FsOps.h"
#include "Templates.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>

#include <unistd.h>

namespace fakesbx {

namespace {

// <number>[b|k|m|g] (no suffix: bytes, as docker's --memory), within 512 MiB .. 32 GiB.
bool validMemory(const QString &memory)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]{1,15})([bBkKmMgG]?)$"));
    const QRegularExpressionMatch m = re.match(memory);
    if (!m.hasMatch())
        return false;
    const QString unit = m.captured(2).toLower();
    const int shift = unit == QLatin1String("g") ? 30 : unit == QLatin1String("m") ? 20 : unit == QLatin1String("k") ? 10 : 0;
    const unsigned long long bytes = m.captured(1).toULongLong() << shift;
    return bytes >= (512ULL << 20) && bytes <= (32ULL << 30);
}

// Removes a sandbox that failed half-way (not on the crash fault: that one leaves it behind).
int abandon(const Context &ctx, const QString &name, const QString &message)
{
    StateLock lock(ctx.state);
    QString ignored;
    removeTree(ctx.state.sandboxDir(name), &ignored);
    return fail(message);
}

} // namespace

int cmdCreate(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(args, {QStringLiteral("--quiet"), QStringLiteral("--clone")},
                                        {QStringLiteral("--name"), QStringLiteral("--template"),
                                         QStringLiteral("--memory")});
    if (!parsed.ok)
        return fail(parsed.error);
    for (const char *flag : {"--name", "--template", "--memory", "--quiet", "--clone"}) {
        if (parsed.count(QLatin1String(flag)) > 1)
            return fail(QStringLiteral("flag %1 given more than once").arg(QLatin1String(flag)));
    }
    const QString name = parsed.value(QStringLiteral("--name"));
    if (name.isEmpty())
        return fail(QStringLiteral("a sandbox name is required (--name)"));
    if (!isValidSandboxName(name))
        return fail(QStringLiteral("ERROR: invalid sandbox name \"%1\": use 2-63 letters, digits, '-' or '.', "
                                   "starting with a letter or digit and not ending with '-' or '.'").arg(name));
    if (parsed.positional.size() != 2)
        return fail(QStringLiteral("usage: sbx create [flags] shell <workspace>"));
    if (parsed.positional.at(0) != QLatin1String("shell"))
        return fail(QStringLiteral("unknown agent \"%1\" (the fake supports only \"shell\")").arg(parsed.positional.at(0)));
    const QFileInfo root(parsed.positional.at(1));
    if (!root.isDir())
        return fail(QStringLiteral("workspace %1 does not exist or is not a directory").arg(parsed.positional.at(1)));
    const QString memory = parsed.value(QStringLiteral("--memory"));
    if (parsed.has(QStringLiteral("--memory")) && !validMemory(memory))
        return fail(QStringLiteral("ERROR: invalid memory \"%1\": must be between 512m and 32g").arg(memory));
    const bool clone = parsed.has(QStringLiteral("--clone"));
    const QString workspace = QDir::cleanPath(root.absoluteFilePath());
    if (clone) {
        const QString refusal = cloneRefusal(workspace);
        if (!refusal.isEmpty())
            return fail(refusal);
    }

    ImageRef ref;
    const bool custom = parsed.has(QStringLiteral("--template"));
    if (custom) {
        const QString text = parsed.value(QStringLiteral("--template"));
        if (!parseImageRef(text, &ref))
            return fail(QStringLiteral("invalid template reference \"%1\"").arg(text));
        QString error;
        if (!templateExists(ctx, ref, &error))
            return fail(error.isEmpty() ? QStringLiteral("ERROR: request failed: 403 Forbidden: pull failed for image \"%1\"").arg(text) : error);
    }
    const int policy = requirePolicy(ctx);
    if (policy >= 0)
        return policy;
    if (const int executor = requireExecutor(ctx); executor >= 0)
        return executor;

    SandboxMeta meta;
    meta.name = name;
    meta.templateRef = custom ? parsed.value(QStringLiteral("--template")) : QString();
    meta.memory = memory;
    meta.clone = clone;
    meta.workspace = workspace;
    meta.status = QStringLiteral("creating");
    meta.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
    const QString dir = ctx.state.sandboxDir(name);
    {
        StateLock lock(ctx.state);
        if (!lock.ok())
            return 1;
        if (QFileInfo::exists(dir))
            return fail(QStringLiteral("ERROR: sandbox '%1' already exists").arg(name));
        QString error;
        if (!QDir().mkpath(dir + QStringLiteral("/home")) || !QDir().mkpath(dir + QStringLiteral("/tmp")))
            return fail(QStringLiteral("cannot create %1").arg(dir));
        if (!ctx.state.writeMeta(meta, &error))
            return fail(error);
    }

    const QString crash = ctx.faults.value(QStringLiteral("FAKE_SBX_CRASH_MID_CREATE")).trimmed();
    if (!crash.isEmpty() && crash != QLatin1String("0")) {
        if (crash == QLatin1String("hang"))
            hangForever();
        ::_exit(137);
    }

    // The real create takes seconds (minutes on a first image pull); the benchmark models that here,
    // while `sbx ls` shows the sandbox as creating.
    if (const long delay = ctx.faults.value(QStringLiteral("FAKE_SBX_CREATE_DELAY_MS")).trimmed().toLong(); delay > 0)
        sleepMs(delay);

    QString error;
    if (custom) {
        const QString snapshot = ctx.state.templateSnapshotDir(templateSnapshotId(ref)) + QStringLiteral("/home");
        if (QFileInfo(snapshot).isDir() && !copyTreeContents(snapshot, dir + QStringLiteral("/home"), &error))
            return abandon(ctx, name, error);
    }
    if (meta.clone && !cloneWorkspace(name, meta.workspace, dir + QStringLiteral("/clone"), &error)) {
        removeHostRemote(name, meta.workspace);
        return abandon(ctx, name, error);
    }

    {
        StateLock lock(ctx.state);
        if (!ctx.state.exists(name))
            return fail(QStringLiteral("sandbox %1 was removed while being created").arg(name));
        meta.status = QStringLiteral("running");
        // The VM shares the folder the path names now, at the end of its start (virtiofs): a
        // symbolic link swapped in while create ran is followed.
        meta.mountSource = QFileInfo(meta.workspace).canonicalFilePath();
        if (!ctx.state.writeMeta(meta, &error))
            return fail(error);
        ensureIdleWatcher(ctx, name);
    }
    if (!parsed.has(QStringLiteral("--quiet")))
        printOut(QStringLiteral("Created sandbox %1\n").arg(name).toLocal8Bit());
    return 0;
}

} // namespace fakesbx
