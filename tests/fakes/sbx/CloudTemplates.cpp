#include "CloudTemplates.h"

#include "Args.h"
#include "Cloud.h"
#include "FsOps.h"
#include "ProcessKiller.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSet>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fakesbx {

namespace {

constexpr qint64 kGiB = 1024LL * 1024 * 1024;

int templateFail(const QString &message)
{
    return fail(QStringLiteral("ERROR: ") + message);
}

QString registryDir(const Context &ctx)
{
    return ctx.state.path(QStringLiteral("cloud/templates"));
}

QJsonObject readJson(const QString &file)
{
    QFile f(file);
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object() : QJsonObject();
}

QList<QJsonObject> allTemplates(const Context &ctx)
{
    QList<QJsonObject> out;
    const QDir dir(registryDir(ctx));
    for (const QString &id : dir.entryList({QStringLiteral("tmpl_*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        const QJsonObject o = readJson(dir.filePath(id + QStringLiteral("/template.json")));
        if (!o.isEmpty())
            out << o;
    }
    return out;
}

QJsonObject findTemplate(const Context &ctx, const QString &ref)
{
    for (const QJsonObject &o : allTemplates(ctx))
        if (o.value(QStringLiteral("id")).toString() == ref || o.value(QStringLiteral("name")).toString() == ref)
            return o;
    return {};
}

qint64 treeBytes(const QString &root)
{
    qint64 bytes = 0;
    QDirIterator it(root, QDir::Files | QDir::Hidden | QDir::NoSymLinks, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        bytes += it.fileInfo().size();
    }
    return bytes;
}

QByteArray procFile(pid_t pid, const char *name)
{
    QFile f(QStringLiteral("/proc/%1/%2").arg(pid).arg(QLatin1String(name)));
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

pid_t parentOf(pid_t pid)
{
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
    const QByteArray stat = procFile(pid, "stat");
    const qsizetype close = stat.lastIndexOf(')');
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    return fields.size() > 1 ? static_cast<pid_t>(fields.at(1).toLong()) : 0;
}

// What a memory capture keeps of a sandbox's processes: each one but bubblewrap, this binary, and
// the command an exec ran (bubblewrap's direct child), which ends with its exec client. What an exec
// left running (a daemon, a background job, a session's shell) is kept.
QList<CapturedProcess> captureProcesses(const Context &ctx, const QString &sandboxId)
{
    const QString self = QFileInfo(ctx.selfExe).canonicalFilePath();
    QHash<pid_t, pid_t> parents;
    QSet<pid_t> bwraps;
    for (const pid_t pid : sandboxProcesses(sandboxId)) {
        parents.insert(pid, parentOf(pid));
        if (procFile(pid, "comm").trimmed() == "bwrap")
            bwraps.insert(pid);
    }
    QList<CapturedProcess> out;
    for (auto it = parents.cbegin(); it != parents.cend(); ++it) {
        const pid_t pid = it.key();
        if (bwraps.contains(pid) || bwraps.contains(it.value()))
            continue;
        if (QFileInfo(QStringLiteral("/proc/%1/exe").arg(pid)).canonicalFilePath() == self)
            continue;
        CapturedProcess p;
        for (const QByteArray &a : procFile(pid, "cmdline").split('\0'))
            p.argv << QString::fromLocal8Bit(a);
        while (!p.argv.isEmpty() && p.argv.last().isEmpty())
            p.argv.removeLast();
        p.cwd = QFileInfo(QStringLiteral("/proc/%1/cwd").arg(pid)).symLinkTarget();
        if (!p.argv.isEmpty())
            out << p;
    }
    return out;
}

int save(const Context &ctx, const ParsedArgs &parsed)
{
    if (parsed.positional.size() != 2)
        return usageError(QStringLiteral("usage: sbx --cloud template save SANDBOX NAME [--capture-mode disk|all] [-d TEXT]"));
    const QString mode = parsed.has(QStringLiteral("--capture-mode")) ? parsed.value(QStringLiteral("--capture-mode")) : QStringLiteral("disk");
    if (mode != QLatin1String("disk") && mode != QLatin1String("all"))
        return templateFail(QStringLiteral("invalid --capture-mode \"%1\": disk or all").arg(mode));
    const QString name = parsed.positional.at(1);
    static const QRegularExpression nameRe(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
    if (!nameRe.match(name).hasMatch())
        return templateFail(QStringLiteral("invalidArgument: invalid template name \"%1\"").arg(name));
    CloudSandboxView sandbox;
    if (!cloudFind(ctx, parsed.positional.at(0), &sandbox))
        return templateFail(QStringLiteral("notFound: sandbox %1 not found").arg(parsed.positional.at(0)));
    if (sandbox.status != QLatin1String("running"))
        return templateFail(QStringLiteral("failedPrecondition: sandbox %1 is %2: a template is saved from a running sandbox "
                                           "(resume it with `sbx --cloud run --detached --name %3`)")
                                .arg(sandbox.id, sandbox.status, sandbox.name));
    if (mode == QLatin1String("all") && ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_NO_MEMORY_CAPTURE")))
        return templateFail(QStringLiteral("failedPrecondition: sandbox %1 cannot capture memory (canCaptureMemory is false): "
                                           "use --capture-mode disk").arg(sandbox.id));
    if (const int injected = applyCommandFaults(ctx.faults, QStringLiteral("CLOUD_TEMPLATE_SAVE")); injected >= 0)
        return injected;
    const QString id = QStringLiteral("tmpl_") + QString::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, QLatin1Char('0')).left(12);
    const QString dir = registryDir(ctx) + QLatin1Char('/') + id;
    {
        StateLock lock(ctx.state);
        if (!findTemplate(ctx, name).isEmpty())
            return templateFail(QStringLiteral("alreadyExists: a template named %1 exists").arg(name));
        if (!QDir().mkpath(dir))   // the name is taken from here on
            return fail(QStringLiteral("cannot create %1").arg(dir));
        QSaveFile f(dir + QStringLiteral("/template.json"));
        const QJsonObject pending{{QStringLiteral("id"), id}, {QStringLiteral("name"), name}, {QStringLiteral("status"), QStringLiteral("saving")}};
        if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(pending).toJson(QJsonDocument::Compact)) < 0 || !f.commit())
            return fail(QStringLiteral("cannot write %1").arg(f.fileName()));
    }
    printOut(QStringLiteral("Saving template %1 from %2 (capture mode %3)...\n").arg(name, sandbox.id, mode).toUtf8());
    // The processes first (a memory capture freezes them as they are), then the disk; the sandbox
    // keeps running throughout ("leaves the sandbox running").
    QJsonArray processes;
    if (mode == QLatin1String("all"))
        for (const CapturedProcess &p : captureProcesses(ctx, sandbox.id))
            processes.append(QJsonObject{{QStringLiteral("argv"), QJsonArray::fromStringList(p.argv)}, {QStringLiteral("cwd"), p.cwd}});
    QString error;
    if (!captureTreeContents(sandbox.id, sandbox.home, dir + QStringLiteral("/home"), &error)) {
        removeTree(dir, &error);
        return templateFail(QStringLiteral("internal: the snapshot failed: %1").arg(error));
    }
    // "Several minutes, multi-GB": the stock image's disk (1 GiB here) and, captured, the memory.
    const qint64 bytes = treeBytes(dir + QStringLiteral("/home")) + kGiB
                         + (mode == QLatin1String("all") ? static_cast<qint64>(sandbox.memoryMib) * 1024 * 1024 : 0);
    if (const long delay = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_CLOUD_TEMPLATE_SAVE_MS"), 0); delay > 0)
        sleepMs(delay);   // "polls for completion"
    const QJsonObject done{{QStringLiteral("id"), id}, {QStringLiteral("name"), name}, {QStringLiteral("status"), QStringLiteral("ready")},
                           {QStringLiteral("capture_mode"), mode}, {QStringLiteral("description"), parsed.value(QStringLiteral("--description"))},
                           {QStringLiteral("cpus"), sandbox.cpus}, {QStringLiteral("memory_mib"), sandbox.memoryMib},
                           {QStringLiteral("size"), bytes}, {QStringLiteral("from_home"), sandbox.home},
                           {QStringLiteral("created_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                           {QStringLiteral("processes"), processes}};
    StateLock lock(ctx.state);
    QSaveFile f(dir + QStringLiteral("/template.json"));
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(done).toJson(QJsonDocument::Compact)) < 0 || !f.commit())
        return fail(QStringLiteral("cannot write %1").arg(f.fileName()));
    printOut(QStringLiteral("Template %1 saved (%2)\n").arg(name, id).toUtf8());
    return 0;
}

QJsonObject rowOf(const QJsonObject &o)
{
    QJsonObject row = o;
    row.remove(QStringLiteral("processes"));
    row.remove(QStringLiteral("from_home"));
    return row;
}

int list(const Context &ctx, const ParsedArgs &parsed)
{
    QJsonArray rows;
    QStringList lines{QStringLiteral("ID                 NAME                           MODE  STATUS  SIZE")};
    for (const QJsonObject &o : allTemplates(ctx)) {
        rows.append(rowOf(o));
        lines << QStringLiteral("%1 %2 %3 %4 %5").arg(o.value(QStringLiteral("id")).toString(), -18)
                     .arg(o.value(QStringLiteral("name")).toString(), -30).arg(o.value(QStringLiteral("capture_mode")).toString(), -5)
                     .arg(o.value(QStringLiteral("status")).toString(), -7).arg(o.value(QStringLiteral("size")).toInteger());
    }
    // The page leaves the shape UNKNOWN (§10.6): the envelope follows FAKE_SBX_CLOUD_LS_SHAPE.
    return printCloudListing(ctx, parsed.has(QStringLiteral("--quiet")), parsed.has(QStringLiteral("--json")), rows, lines,
                             QStringLiteral("templates"));
}

int remove(const Context &ctx, const ParsedArgs &parsed)
{
    if (parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx --cloud template rm NAME|tmpl_ID [-f]"));
    if (!parsed.has(QStringLiteral("--force")))
        return templateFail(QStringLiteral("cannot prompt for confirmation: stdin is not a terminal (pass --force)"));
    if (const int injected = applyCommandFaults(ctx.faults, QStringLiteral("CLOUD_TEMPLATE_RM")); injected >= 0)
        return injected;
    StateLock lock(ctx.state);
    const QJsonObject o = findTemplate(ctx, parsed.positional.first());
    if (o.isEmpty())
        return templateFail(QStringLiteral("notFound: template %1 not found").arg(parsed.positional.first()));
    QString error;
    if (!removeTree(registryDir(ctx) + QLatin1Char('/') + o.value(QStringLiteral("id")).toString(), &error))
        return fail(error);
    printOut(QStringLiteral("Template %1 removed\n").arg(o.value(QStringLiteral("name")).toString()).toUtf8());
    return 0;
}

int inspect(const Context &ctx, const ParsedArgs &parsed)
{
    if (parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx --cloud template inspect NAME|tmpl_ID [--json]"));
    const QJsonObject o = findTemplate(ctx, parsed.positional.first());
    if (o.isEmpty())
        return templateFail(QStringLiteral("notFound: template %1 not found").arg(parsed.positional.first()));
    printOut(QJsonDocument(rowOf(o)).toJson(QJsonDocument::Compact) + '\n');
    return 0;
}

} // namespace

int cmdCloudTemplate(const Context &ctx, const QStringList &args)
{
    const QString sub = args.value(0);
    QStringList rest = args.mid(1);
    rest.replaceInStrings(QRegularExpression(QStringLiteral("^-f$")), QStringLiteral("--force"));
    rest.replaceInStrings(QRegularExpression(QStringLiteral("^-q$")), QStringLiteral("--quiet"));
    rest.replaceInStrings(QRegularExpression(QStringLiteral("^-d$")), QStringLiteral("--description"));
    const ParsedArgs parsed = parseArgs(rest, {QStringLiteral("--json"), QStringLiteral("--quiet"), QStringLiteral("--force")},
                                        {QStringLiteral("--capture-mode"), QStringLiteral("--description")});
    if (!parsed.ok)
        return fail(parsed.error);
    if (!QDir().mkpath(registryDir(ctx)))
        return fail(QStringLiteral("cannot create %1").arg(registryDir(ctx)));
    if (sub == QLatin1String("save"))
        return save(ctx, parsed);
    if (sub == QLatin1String("ls") || sub == QLatin1String("list"))
        return list(ctx, parsed);
    if (sub == QLatin1String("rm") || sub == QLatin1String("remove"))
        return remove(ctx, parsed);
    if (sub == QLatin1String("inspect"))
        return inspect(ctx, parsed);
    return templateFail(QStringLiteral("\"template %1\" is not supported with --cloud by this fake (load is not modelled)").arg(sub));
}

bool cloudTemplateFind(const Context &ctx, const QString &ref, CloudTemplateView *out)
{
    const QJsonObject o = findTemplate(ctx, ref);
    if (o.isEmpty() || o.value(QStringLiteral("status")).toString() != QLatin1String("ready"))
        return false;
    out->id = o.value(QStringLiteral("id")).toString();
    out->name = o.value(QStringLiteral("name")).toString();
    out->captureMode = o.value(QStringLiteral("capture_mode")).toString();
    out->cpus = o.value(QStringLiteral("cpus")).toInt();
    out->memoryMib = o.value(QStringLiteral("memory_mib")).toInt();
    out->home = registryDir(ctx) + QLatin1Char('/') + out->id + QStringLiteral("/home");
    out->fromHome = o.value(QStringLiteral("from_home")).toString();
    out->processes.clear();
    for (const QJsonValue &v : o.value(QStringLiteral("processes")).toArray()) {
        CapturedProcess p;
        for (const QJsonValue &a : v.toObject().value(QStringLiteral("argv")).toArray())
            p.argv << a.toString();
        p.cwd = v.toObject().value(QStringLiteral("cwd")).toString();
        out->processes << p;
    }
    return true;
}

void cloudTemplateResume(const Context &ctx, const CloudTemplateView &tmpl, const QString &id, const QString &home)
{
    // The fake's HOME differs per sandbox (Docker's is /home/agent in each): paths under the old one
    // name the new one.
    const auto moved = [&tmpl, &home](const QString &path) {
        return !tmpl.fromHome.isEmpty() && (path == tmpl.fromHome || path.startsWith(tmpl.fromHome + QLatin1Char('/')))
                   ? home + path.mid(tmpl.fromHome.size()) : path;
    };
    for (const CapturedProcess &p : tmpl.processes) {
        const QString cwd = moved(p.cwd);
        QStringList argv{ctx.selfExe, QStringLiteral("--cloud"), QStringLiteral("exec"), QStringLiteral("-w"),
                         cwd.startsWith(home) ? cwd : home, id};
        for (const QString &a : p.argv)
            argv << moved(a);
        std::vector<QByteArray> bytes;
        for (const QString &a : std::as_const(argv))
            bytes.push_back(a.toLocal8Bit());
        std::vector<char *> cargv;
        for (QByteArray &b : bytes)
            cargv.push_back(b.data());
        cargv.push_back(nullptr);
        // Detached twice over: its own session, nothing of this command's stdio, no zombie left.
        const pid_t child = ::fork();
        if (child == 0) {
            ::setsid();
            if (::fork() != 0)
                ::_exit(0);
            const int devNull = ::open("/dev/null", O_RDWR);
            ::dup2(devNull, 0);
            ::dup2(devNull, 1);
            ::dup2(devNull, 2);
            closeDescriptorsFrom(3);
            ::execv(cargv[0], cargv.data());
            ::_exit(127);
        }
        if (child > 0)
            ::waitpid(child, nullptr, 0);
    }
}

} // namespace fakesbx
