// sbx move SANDBOX --to local|cloud [--name NAME] [-f/--force] [--ttl DUR] [--on-timeout stop|delete]
// (reference/sbx-cloud.md §6): the source's filesystem (its HOME here) is captured and a new sandbox
// is made from it on the other side, with a new name and id: not a live migration, and the source is
// never deleted. Local→cloud stops the local source first; cloud→local stops the cloud source after
// the destination exists, best effort. Mounts (the workspace) do not travel. Faults: README.md, "Move".
#include "Args.h"
#include "Cloud.h"
#include "Commands.h"
#include "FsOps.h"
#include "Lifecycle.h"
#include "ProcessKiller.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QRegularExpression>

#include <cstdio>
#include <unistd.h>

namespace fakesbx {

namespace {

void warn(const QString &line)
{
    const QByteArray text = QStringLiteral("WARNING: %1\n").arg(line).toUtf8();
    std::fwrite(text.constData(), 1, static_cast<size_t>(text.size()), stderr);
}

void progress(const Context &ctx, const QString &line)
{
    if (ctx.faults.value(QStringLiteral("FAKE_SBX_MOVE_OUTPUT")).trimmed() != QLatin1String("quiet"))
        printOut(line.toUtf8() + '\n');
}

int memoryMib(const QString &memory)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]+)([gGmM])$"));
    const QRegularExpressionMatch m = re.match(memory);
    return m.hasMatch() ? m.captured(1).toInt() * (m.captured(2).toLower() == QLatin1String("g") ? 1024 : 1) : 0;
}

// The time a transfer takes: a fixed part and one per MiB of the captured filesystem (realistic
// profile: 15 s and 20 ms/MiB, stated assumptions: the docs give no figure).
void transferDelay(const Context &ctx, const QString &home)
{
    const long fixed = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_MOVE_DELAY_MS"), 15000);
    const long perMib = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_MOVE_MS_PER_MIB"), 20);
    qint64 bytes = 0;
    // The size is only needed for a time per MiB: the walk is skipped otherwise.
    for (QDirIterator it(home, QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
         perMib > 0 && it.hasNext();) {
        it.next();
        if (!it.fileInfo().isSymLink())
            bytes += it.fileInfo().size();
    }
    const long total = fixed + static_cast<long>(perMib * (bytes / (1024 * 1024)));
    if (total > 0)
        sleepMs(total);
}

// FAKE_SBX_MOVE_CRASH=<step>: sbx dies there (exit 137), what it made so far left as it is.
void crashAt(const Context &ctx, const char *step)
{
    if (ctx.faults.value(QStringLiteral("FAKE_SBX_MOVE_CRASH")).trimmed() == QLatin1String(step))
        ::_exit(137);
}

int toCloud(const Context &ctx, const ParsedArgs &parsed, const QString &source, bool confirmed)
{
    SandboxMeta meta;
    {
        StateLock lock(ctx.state);
        if (!ctx.state.exists(source) || !ctx.state.readMeta(source, &meta))
            return fail(QStringLiteral("ERROR: sandbox '%1' not found").arg(source));
    }
    const bool leavesWorkspace = !meta.workspace.isEmpty() && !meta.workspace.startsWith(ctx.state.sandboxDir(source));
    if (leavesWorkspace && !confirmed)
        return fail(QStringLiteral("ERROR: moving %1 leaves its workspace files behind and needs confirmation, and standard input "
                                   "is not a terminal: pass --force").arg(source));
    CloudReceive spec;
    spec.namePrefix = parsed.has(QStringLiteral("--name")) ? parsed.value(QStringLiteral("--name")) : QStringLiteral("moved-") + source;
    spec.memoryMib = memoryMib(meta.memory);
    spec.ttl = parsed.value(QStringLiteral("--ttl"));
    spec.onTimeout = parsed.value(QStringLiteral("--on-timeout"));
    if (const QString refused = cloudMoveRefusal(ctx, spec); !refused.isEmpty())
        return fail(QStringLiteral("ERROR: ") + refused);
    if (leavesWorkspace)
        warn(QStringLiteral("the workspace %1 is a mount and does not move: its files stay on this computer (copy them in with "
                            "`sbx --cloud cp`)").arg(meta.workspace));
    const bool wasRunning = meta.status == QLatin1String("running");
    progress(ctx, QStringLiteral("Stopping %1 to capture it...").arg(source));
    {
        StateLock lock(ctx.state);
        QString error;
        if (ctx.state.readMeta(source, &meta) && meta.status == QLatin1String("running") && !stopSandbox(ctx, &meta, &error))
            return fail(QStringLiteral("ERROR: cannot stop %1: %2").arg(source, error));
    }
    const QString home = ctx.state.sandboxDir(source) + QStringLiteral("/home");
    crashAt(ctx, "after-capture");
    transferDelay(ctx, home);
    CloudSandboxView made;
    QStringList warnings;
    if (const int rc = cloudReceive(ctx, home, spec, &made, &warnings); rc != 0) {
        // "Restores what it can": a source that was running runs again.
        if (wasRunning) {
            StateLock lock(ctx.state);
            QString ignored;
            if (ctx.state.readMeta(source, &meta))
                startSandbox(ctx, &meta, &ignored);
        }
        return rc;
    }
    for (const QString &w : std::as_const(warnings))
        warn(w);
    crashAt(ctx, "after-create");
    progress(ctx, QStringLiteral("Created cloud sandbox %1 (%2)").arg(made.name, made.id));
    progress(ctx, QStringLiteral("The local sandbox %1 is stopped and kept: `sbx run --name %1` starts it again").arg(source));
    return 0;
}

int toLocal(const Context &ctx, const ParsedArgs &parsed, const QString &source, bool confirmed)
{
    CloudSandboxView from;
    if (!cloudFind(ctx, source, &from))
        return fail(QStringLiteral("ERROR: cloud sandbox %1 not found").arg(source));
    if (!confirmed)   // a move to local always shows a notice and asks
        return fail(QStringLiteral("ERROR: moving %1 to this computer needs confirmation, and standard input is not a terminal: "
                                   "pass --force").arg(source));
    const QString platform = ctx.faults.value(QStringLiteral("FAKE_SBX_MOVE_CLOUD_PLATFORM")).trimmed();
    if (!platform.isEmpty() && platform != QLatin1String("linux/amd64"))
        return fail(QStringLiteral("ERROR: cloud sandbox %1 runs %2 and this computer is linux/amd64: a move does not convert "
                                   "platforms (create the cloud sandbox with a matching --platform)").arg(from.id, platform));
    QString name = parsed.has(QStringLiteral("--name")) ? parsed.value(QStringLiteral("--name")) : QStringLiteral("moved-") + from.name;
    if (!isValidSandboxName(name))
        return fail(QStringLiteral("ERROR: invalid sandbox name \"%1\"").arg(name));
    transferDelay(ctx, from.home);
    SandboxMeta meta;
    {
        StateLock lock(ctx.state);
        // A local destination gets a suffix only when the name is taken.
        if (ctx.state.exists(name))
            name += QLatin1Char('-') + QString::number(QRandomGenerator::global()->bounded(0x10000), 16).rightJustified(4, QLatin1Char('0'));
        const QString dir = ctx.state.sandboxDir(name);
        QString error;
        bool copied = QDir().mkpath(dir + QStringLiteral("/tmp"));
        if (copied)
            copied = captureTreeContents(from.id, from.home, dir + QStringLiteral("/home"), &error);
        if (!copied) {
            QString ignored;
            removeTree(dir, &ignored);   // nothing half-made is left to list
            return fail(QStringLiteral("ERROR: cannot create the local sandbox: %1").arg(error));
        }
        // No mount: the files sit in the sandbox at the image's working directory.
        meta.name = name;
        meta.workspace = dir + QStringLiteral("/home");
        meta.mountSource = meta.workspace;
        meta.status = QStringLiteral("running");
        meta.created = QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
        if (!ctx.state.writeMeta(meta, &error))
            return fail(error);
        ensureIdleWatcher(ctx, name);
    }
    crashAt(ctx, "after-create");
    progress(ctx, QStringLiteral("Created sandbox %1").arg(name));
    QString warning;
    if (!cloudStopAfterMove(ctx, from.id, &warning))
        warn(warning);
    else
        progress(ctx, QStringLiteral("The cloud sandbox %1 is stopped and kept: `sbx --cloud rm %1` deletes it").arg(from.id));
    return 0;
}

} // namespace

int cmdMove(const Context &ctx, const QStringList &args)
{
    const ParsedArgs parsed = parseArgs(QStringList(args).replaceInStrings(QRegularExpression(QStringLiteral("^-f$")), QStringLiteral("--force")),
                                        {QStringLiteral("--force")},
                                        {QStringLiteral("--to"), QStringLiteral("--name"), QStringLiteral("--ttl"), QStringLiteral("--on-timeout")});
    if (!parsed.ok)
        return fail(parsed.error);
    const QString usage = QStringLiteral("usage: sbx move SANDBOX --to local|cloud [--name NAME] [-f] [--ttl DUR] [--on-timeout stop|delete]");
    if (parsed.positional.size() != 1 || !parsed.has(QStringLiteral("--to")))
        return usageError(usage);
    const QString to = parsed.value(QStringLiteral("--to"));
    // "If a confirmation is required and standard input isn't a terminal, the move fails unless you pass --force".
    const bool confirmed = parsed.has(QStringLiteral("--force")) || ::isatty(0);
    if (to == QLatin1String("cloud"))
        return toCloud(ctx, parsed, parsed.positional.first(), confirmed);
    if (to != QLatin1String("local"))
        return usageError(usage);
    if (parsed.has(QStringLiteral("--ttl")) || parsed.has(QStringLiteral("--on-timeout")))
        return fail(QStringLiteral("ERROR: --ttl and --on-timeout apply to a move to the cloud only"));
    return toLocal(ctx, parsed, parsed.positional.first(), confirmed);
}

} // namespace fakesbx
