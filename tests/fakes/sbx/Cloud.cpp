// sbx --cloud create|run|ls|exec|stop|rm|ttl|ports|cp|diagnose (reference/sbx-cloud.md).
#include "Cloud.h"

#include "Args.h"
#include "CloudTemplates.h"
#include "Daemon.h"
#include "ExecRunner.h"
#include "FsOps.h"
#include "ProcessKiller.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QSaveFile>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace fakesbx {

namespace {

struct Size
{
    const char *name;
    int cpus;
    int memoryMib;
};
const Size kSizes[] = {{"micro", 1, 2048}, {"small", 2, 4096}, {"medium", 4, 8192}, {"large", 8, 16384}, {"xl", 16, 32768}};

constexpr qint64 kHourMs = 3600 * 1000;
constexpr qint64 kCeilingMs = 24 * kHourMs;

// What the cloud keeps of a sandbox beside the fake's meta.json (whose name is the sbx_ id).
struct CloudInfo
{
    QString id;
    QString name;
    int cpus = 2;
    int memoryMib = 4096;
    qint64 createdMs = 0;   // real time
    qint64 expiresMs = 0;   // real time; 0 while no deadline is armed (stopped)
    qint64 ttlMs = 0;       // real (scaled) duration asked at create, armed again on resume
    QString onTimeout;      // stop | restart | delete; empty: the server's default
    QJsonObject ports;      // "8080" -> public URL

    QJsonObject toJson() const
    {
        return {{QStringLiteral("id"), id}, {QStringLiteral("name"), name}, {QStringLiteral("cpus"), cpus},
                {QStringLiteral("memory_mib"), memoryMib}, {QStringLiteral("created_ms"), createdMs},
                {QStringLiteral("expires_ms"), expiresMs}, {QStringLiteral("ttl_ms"), ttlMs},
                {QStringLiteral("on_timeout"), onTimeout}, {QStringLiteral("ports"), ports}};
    }
    static CloudInfo fromJson(const QJsonObject &o)
    {
        CloudInfo c;
        c.id = o.value(QStringLiteral("id")).toString();
        c.name = o.value(QStringLiteral("name")).toString();
        c.cpus = o.value(QStringLiteral("cpus")).toInt(2);
        c.memoryMib = o.value(QStringLiteral("memory_mib")).toInt(4096);
        c.createdMs = o.value(QStringLiteral("created_ms")).toInteger();
        c.expiresMs = o.value(QStringLiteral("expires_ms")).toInteger();
        c.ttlMs = o.value(QStringLiteral("ttl_ms")).toInteger();
        c.onTimeout = o.value(QStringLiteral("on_timeout")).toString();
        c.ports = o.value(QStringLiteral("ports")).toObject();
        return c;
    }
    QString sizeName() const
    {
        for (const Size &s : kSizes)
            if (s.cpus == cpus)
                return QString::fromLatin1(s.name);
        return QStringLiteral("custom");
    }
};

struct Cloud
{
    const Context &ctx;
    StateDir store;

    explicit Cloud(const Context &c) : ctx(c), store(c.state.path(QStringLiteral("cloud"))) {}

    QString dir(const QString &id) const { return store.sandboxDir(id); }
    QStringList ids() const
    {
        return QDir(store.sandboxesDir()).entryList({QStringLiteral("sbx_*")}, QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    }
    bool read(const QString &id, SandboxMeta *meta, CloudInfo *info) const
    {
        QFile m(dir(id) + QStringLiteral("/meta.json"));
        QFile c(dir(id) + QStringLiteral("/cloud.json"));
        if (!m.open(QIODevice::ReadOnly) || !c.open(QIODevice::ReadOnly))
            return false;
        if (!SandboxMeta::fromJson(QJsonDocument::fromJson(m.readAll()).object(), meta))
            return false;
        *info = CloudInfo::fromJson(QJsonDocument::fromJson(c.readAll()).object());
        return true;
    }
    bool write(const SandboxMeta &meta, const CloudInfo &info) const
    {
        for (const auto &[file, json] : {std::pair{QStringLiteral("/meta.json"), meta.toJson()},
                                         std::pair{QStringLiteral("/cloud.json"), info.toJson()}}) {
            QSaveFile f(dir(info.id) + file);
            if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(json).toJson(QJsonDocument::Compact)) < 0 || !f.commit())
                return false;
        }
        return true;
    }
    // By sbx_ id or by name.
    QString resolve(const QString &ref) const
    {
        for (const QString &id : ids()) {
            SandboxMeta meta;
            CloudInfo info;
            if (read(id, &meta, &info) && (id == ref || info.name == ref))
                return id;
        }
        return {};
    }
    double timeScale() const
    {
        bool ok = false;
        const double scale = ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_TIME_SCALE")).trimmed().toDouble(&ok);
        return ok && scale > 0 ? scale : 1.0;
    }
    qint64 scaled(qint64 modelledMs) const { return static_cast<qint64>(static_cast<double>(modelledMs) * timeScale()); }
    bool stopAllowed() const { return !ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_NO_STOP")); }
    void stopProcesses(const QString &id) const { killSandboxProcesses(id); }
    // The deadlines that passed: each sandbox's on-timeout action (omitted: stop where the account
    // can, else delete). Run under the lock at the start of every cloud command.
    void expire() const
    {
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        for (const QString &id : ids()) {
            SandboxMeta meta;
            CloudInfo info;
            if (!read(id, &meta, &info) || meta.status != QLatin1String("running") || info.expiresMs <= 0 || now < info.expiresMs)
                continue;
            const QString action = info.onTimeout.isEmpty() ? (stopAllowed() ? QStringLiteral("stop") : QStringLiteral("delete"))
                                                            : info.onTimeout;
            stopProcesses(id);
            if (action == QLatin1String("delete")) {
                QString ignored;
                removeTree(dir(id), &ignored);
            } else if (action == QLatin1String("restart")) {
                info.expiresMs = std::min(now + info.ttlMs, info.createdMs + scaled(kCeilingMs));
                write(meta, info);
            } else {
                meta.status = QStringLiteral("stopped");
                info.expiresMs = 0;
                write(meta, info);
            }
        }
    }
};

// Go durations: 30m, 2h, 1h30m, 45s (units case-insensitive).
bool parseDuration(const QString &text, qint64 *ms)
{
    static const QRegularExpression whole(QStringLiteral("^(?:[0-9]+(?:h|m|s|ms))+$"), QRegularExpression::CaseInsensitiveOption);
    if (!whole.match(text).hasMatch())
        return false;
    static const QRegularExpression part(QStringLiteral("([0-9]+)(ms|h|m|s)"), QRegularExpression::CaseInsensitiveOption);
    qint64 total = 0;
    for (auto it = part.globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch m = it.next();
        const qint64 n = m.captured(1).toLongLong();
        const QString unit = m.captured(2).toLower();
        total += unit == QLatin1String("h") ? n * kHourMs : unit == QLatin1String("m") ? n * 60000 : unit == QLatin1String("s") ? n * 1000 : n;
    }
    *ms = total;
    return true;
}

QString iso(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

bool validCloudName(const QString &name)
{
    static const QRegularExpression re(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9-]{1,62}$"));
    return re.match(name).hasMatch() && name != QLatin1String("default");
}

int cloudFail(const QString &message)
{
    return fail(QStringLiteral("ERROR: ") + message);
}

QJsonObject rowJson(const SandboxMeta &meta, const CloudInfo &info)
{
    QJsonArray ports;
    for (auto it = info.ports.begin(); it != info.ports.end(); ++it)
        ports.append(QJsonObject{{QStringLiteral("port"), it.key().toInt()}, {QStringLiteral("protocol"), QStringLiteral("tcp")},
                                 {QStringLiteral("url"), it.value().toString()}});
    return {{QStringLiteral("id"), info.id},
            {QStringLiteral("name"), info.name},
            {QStringLiteral("agent"), QStringLiteral("shell")},
            {QStringLiteral("status"), meta.status},
            {QStringLiteral("cpus"), info.cpus},
            {QStringLiteral("memory_mib"), info.memoryMib},
            {QStringLiteral("size"), info.sizeName()},
            {QStringLiteral("created_at"), iso(info.createdMs)},
            {QStringLiteral("expires_at"), info.expiresMs > 0 ? QJsonValue(iso(info.expiresMs)) : QJsonValue()},
            {QStringLiteral("ports"), ports}};
}

// Size flags: both must form one size; one given picks the other; none: small.
bool pickSize(const ParsedArgs &parsed, CloudInfo *info, QString *error)
{
    const bool hasCpus = parsed.has(QStringLiteral("--cpus"));
    const bool hasMemory = parsed.has(QStringLiteral("--memory"));
    if (!hasCpus && !hasMemory)
        return true;
    const int cpus = parsed.value(QStringLiteral("--cpus")).toInt();
    static const QRegularExpression memRe(QStringLiteral("^([0-9]+)([gGmM])$"));
    const QRegularExpressionMatch m = memRe.match(parsed.value(QStringLiteral("--memory")));
    const int mib = m.hasMatch() ? m.captured(1).toInt() * (m.captured(2).toLower() == QLatin1String("g") ? 1024 : 1) : -1;
    for (const Size &s : kSizes) {
        if ((!hasCpus || s.cpus == cpus) && (!hasMemory || s.memoryMib == mib)) {
            info->cpus = s.cpus;
            info->memoryMib = s.memoryMib;
            return true;
        }
    }
    *error = QStringLiteral("invalidArgument: --cpus %1 --memory %2 is not a cloud size (micro 1/2g, small 2/4g, medium 4/8g, "
                            "large 8/16g, xl 16/32g)")
                 .arg(parsed.value(QStringLiteral("--cpus")), parsed.value(QStringLiteral("--memory")));
    return false;
}

const QStringList kCreateValues{QStringLiteral("--name"), QStringLiteral("--cpus"), QStringLiteral("--memory"),
                                QStringLiteral("--ttl"), QStringLiteral("--on-timeout"), QStringLiteral("--template"),
                                QStringLiteral("--platform"), QStringLiteral("--allow-network"), QStringLiteral("--deny-network"),
                                QStringLiteral("--env")};

int create(const Cloud &cloud, const ParsedArgs &parsed)
{
    const Faults &faults = cloud.ctx.faults;
    if (parsed.has(QStringLiteral("--clone")))
        return cloudFail(QStringLiteral("--clone is not supported with --cloud: cloud sandboxes have no host workspace"));
    if (parsed.positional.size() > 1)
        return cloudFail(QStringLiteral("cloud sandboxes have no host workspace: \"%1\" refers to the local filesystem")
                             .arg(parsed.positional.at(1)));
    CloudInfo info;
    QString error;
    // From a template: "no agent, no --cpus, no --memory" (the template supplies them, §7).
    CloudTemplateView tmpl;
    const bool fromTemplate = parsed.has(QStringLiteral("--template"));
    if (fromTemplate) {
        if (!parsed.positional.isEmpty())
            return cloudFail(QStringLiteral("invalidArgument: no agent with --template: the template supplies it"));
        if (parsed.has(QStringLiteral("--cpus")) || parsed.has(QStringLiteral("--memory")))
            return cloudFail(QStringLiteral("invalidArgument: --cpus and --memory cannot be given with --template: the template "
                                            "supplies them"));
        if (!cloudTemplateFind(cloud.ctx, parsed.value(QStringLiteral("--template")), &tmpl))
            return cloudFail(QStringLiteral("notFound: template \"%1\" is not in the cloud registry").arg(parsed.value(QStringLiteral("--template"))));
        info.cpus = tmpl.cpus;
        info.memoryMib = tmpl.memoryMib;
    } else {
        if (parsed.positional.size() != 1 || parsed.positional.first() != QLatin1String("shell"))
            return fail(QStringLiteral("usage: sbx --cloud create [flags] AGENT (the fake supports the agent \"shell\")"));
        if (!pickSize(parsed, &info, &error))
            return cloudFail(error);
    }
    qint64 ttl = kHourMs;
    if (parsed.has(QStringLiteral("--ttl"))) {
        if (!parseDuration(parsed.value(QStringLiteral("--ttl")), &ttl) || ttl <= 0)
            return cloudFail(QStringLiteral("invalid --ttl \"%1\": a positive duration such as 30m or 2h").arg(parsed.value(QStringLiteral("--ttl"))));
        if (ttl > kCeilingMs)
            return cloudFail(QStringLiteral("invalidArgument: --ttl %1 is more than 24h").arg(parsed.value(QStringLiteral("--ttl"))));
    }
    const QString onTimeout = parsed.value(QStringLiteral("--on-timeout"));
    if (parsed.has(QStringLiteral("--on-timeout"))) {
        if (onTimeout != QLatin1String("stop") && onTimeout != QLatin1String("restart") && onTimeout != QLatin1String("delete"))
            return cloudFail(QStringLiteral("invalid --on-timeout \"%1\": stop, restart or delete").arg(onTimeout));
        if (onTimeout != QLatin1String("delete") && !cloud.stopAllowed())
            return cloudFail(QStringLiteral("failedPrecondition: stopping sandboxes is not enabled for this account (--on-timeout %1)").arg(onTimeout));
        if (onTimeout == QLatin1String("restart") && ttl < kHourMs)
            return cloudFail(QStringLiteral("invalidArgument: --on-timeout restart needs a --ttl of at least 1h"));
    }
    QString name = parsed.value(QStringLiteral("--name"));
    if (parsed.has(QStringLiteral("--name")) && !validCloudName(name))
        return cloudFail(QStringLiteral("invalid sandbox name \"%1\": use at least 2 letters, digits or hyphens, starting with a "
                                        "letter or digit (periods are rejected in the cloud)").arg(name));
    const int maxConcurrent = faults.value(QStringLiteral("FAKE_SBX_CLOUD_MAX_CONCURRENT")).trimmed().isEmpty()
                                  ? 10 : faults.value(QStringLiteral("FAKE_SBX_CLOUD_MAX_CONCURRENT")).toInt();
    SandboxMeta meta;
    info.id = QStringLiteral("sbx_") + QString::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, QLatin1Char('0')).left(12);
    if (name.isEmpty())
        name = QStringLiteral("shell-") + info.id.mid(4, 6);
    info.name = name;
    info.createdMs = QDateTime::currentMSecsSinceEpoch();
    info.ttlMs = cloud.scaled(ttl);
    info.expiresMs = info.createdMs + info.ttlMs;
    info.onTimeout = onTimeout;
    meta.name = info.id;
    meta.workspace = cloud.dir(info.id) + QStringLiteral("/home/workspace");
    meta.mountSource = meta.workspace;
    meta.status = QStringLiteral("running");
    meta.created = iso(info.createdMs);
    {
        StateLock lock(cloud.ctx.state);
        int running = 0;
        for (const QString &id : cloud.ids()) {
            SandboxMeta other;
            CloudInfo otherInfo;
            if (!cloud.read(id, &other, &otherInfo))
                continue;
            if (otherInfo.name == name)
                return cloudFail(QStringLiteral("alreadyExists: a cloud sandbox named %1 exists (%2)").arg(name, id));
            running += other.status == QLatin1String("running") ? 1 : 0;
        }
        if (running >= maxConcurrent)
            return cloudFail(QStringLiteral("resourceExhausted: the quota of %1 concurrent cloud sandboxes is reached: stop or "
                                            "remove one").arg(maxConcurrent));
        if (!QDir().mkpath(meta.workspace) || !QDir().mkpath(cloud.dir(info.id) + QStringLiteral("/tmp"))
            || (fromTemplate && !copyTreeContents(tmpl.home, cloud.dir(info.id) + QStringLiteral("/home"), &error))
            || !cloud.write(meta, info))
            return fail(QStringLiteral("cannot create %1 %2").arg(cloud.dir(info.id), error));
    }
    if (fromTemplate && tmpl.captureMode == QLatin1String("all"))
        cloudTemplateResume(cloud.ctx, tmpl, info.id, cloud.dir(info.id) + QStringLiteral("/home"));
    // The cloud makes it whatever the client does next: a client killed now leaves it running there.
    if (faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_CRASH_MID_CREATE")))
        ::_exit(137);
    if (const long delay = profileDelayMs(faults, QStringLiteral("FAKE_SBX_CLOUD_CREATE_DELAY_MS"), 8000); delay > 0)
        sleepMs(delay);
    const QString output = faults.value(QStringLiteral("FAKE_SBX_CLOUD_CREATE_OUTPUT")).trimmed();
    const QByteArray progress = QStringLiteral("Creating cloud sandbox %1 (%2: %3 CPUs, %4 GiB)...\n")
                                    .arg(name, info.sizeName()).arg(info.cpus).arg(info.memoryMib / 1024).toUtf8();
    if (output == QLatin1String("progress"))
        printOut(progress + QStringLiteral("Cloud sandbox %1 is running\n").arg(info.id).toUtf8());
    else if (output == QLatin1String("stderr-progress")) {
        std::fwrite(progress.constData(), 1, static_cast<size_t>(progress.size()), stderr);
        printOut(info.id.toUtf8() + '\n');
    } else {
        printOut(info.id.toUtf8() + '\n');
    }
    return 0;
}

// run --detached --name NAME: resumes NAME (same id, stopped -> running) or creates it.
int run(const Cloud &cloud, const ParsedArgs &parsed)
{
    if (!parsed.has(QStringLiteral("--detached")))
        return cloudFail(QStringLiteral("a non-interactive run is refused without --detached (no terminal)"));
    const QString id = parsed.has(QStringLiteral("--name")) ? cloud.resolve(parsed.value(QStringLiteral("--name"))) : QString();
    if (id.isEmpty())
        return create(cloud, parsed);
    for (const char *flag : {"--cpus", "--memory", "--platform", "--ttl", "--env", "--allow-network"})
        if (parsed.has(QLatin1String(flag)))
            return cloudFail(QStringLiteral("%1 cannot be changed when resuming the existing sandbox %2").arg(QLatin1String(flag), id));
    StateLock lock(cloud.ctx.state);
    SandboxMeta meta;
    CloudInfo info;
    if (!cloud.read(id, &meta, &info))
        return cloudFail(QStringLiteral("sandbox %1 not found").arg(id));
    if (!cloud.stopAllowed() && meta.status != QLatin1String("running"))
        return cloudFail(QStringLiteral("sandbox %1 not found").arg(id));   // resume disabled: says "not found" (M-cloud)
    if (meta.status != QLatin1String("running")) {
        meta.status = QStringLiteral("running");
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        info.expiresMs = std::min(now + info.ttlMs, info.createdMs + cloud.scaled(kCeilingMs));
        cloud.write(meta, info);
    }
    printOut(info.id.toUtf8() + '\n');
    return 0;
}

int list(const Cloud &cloud, const ParsedArgs &parsed)
{
    QJsonArray rows;
    QStringList lines{QStringLiteral("ID               NAME                 STATUS    SIZE    EXPIRES")};
    for (const QString &id : cloud.ids()) {
        SandboxMeta meta;
        CloudInfo info;
        if (!cloud.read(id, &meta, &info))
            continue;
        rows.append(rowJson(meta, info));
        lines << QStringLiteral("%1 %2 %3 %4 %5").arg(id, -16).arg(info.name, -20).arg(meta.status, -9).arg(info.sizeName(), -7)
                     .arg(info.expiresMs > 0 ? iso(info.expiresMs) : QStringLiteral("-"));
    }
    return printCloudListing(cloud.ctx, parsed.has(QStringLiteral("--quiet")), parsed.has(QStringLiteral("--json")), rows, lines,
                             QStringLiteral("sandboxes"));
}

// The command with the exec -i variants the page leaves UNKNOWN: stdin's end not passed on, or sbx's
// own exit status 0 whatever the command's. The fake then stays in between as a relay.
int relayExec(const Context &vm, const SandboxMeta &meta, const ExecRequest &req, bool passEof, bool passStatus)
{
    int in[2];
    if (::pipe(in) != 0)
        return fail(QStringLiteral("cannot make a pipe"));
    std::fflush(stdout);
    const pid_t child = ::fork();
    if (child < 0)
        return fail(QStringLiteral("cannot fork"));
    if (child == 0) {
        ::dup2(in[0], 0);
        ::close(in[0]);
        ::close(in[1]);
        ::_exit(execInSandbox(vm, meta, req, 0));
    }
    ::close(in[0]);
    bool open = true;
    char buffer[65536];
    for (;;) {
        pollfd fd{0, POLLIN, 0};
        const int ready = ::poll(&fd, open ? 1 : 0, 100);
        if (open && ready > 0) {
            const ssize_t n = ::read(0, buffer, sizeof buffer);
            if (n <= 0) {
                open = false;
                if (passEof)
                    ::close(in[1]);
            } else {
                for (ssize_t done = 0; done < n;) {
                    const ssize_t w = ::write(in[1], buffer + done, static_cast<size_t>(n - done));
                    if (w <= 0)
                        break;
                    done += w;
                }
            }
        }
        int status = 0;
        if (::waitpid(child, &status, WNOHANG) == child) {
            if (!passStatus)
                return 0;
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
    }
}

int exec(const Cloud &cloud, const QStringList &args)
{
    ExecRequest req;
    QStringList rest;
    for (int i = 0; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (!a.startsWith(QLatin1Char('-'))) {   // the sandbox: the command follows, its flags are its own
            rest << args.mid(i);
            break;
        }
        if (a == QLatin1String("-u") || a.startsWith(QLatin1String("--user")) || a == QLatin1String("-d")
            || a == QLatin1String("--detach") || a == QLatin1String("--privileged"))
            return cloudFail(QStringLiteral("flag %1 is not supported with --cloud").arg(a));
        // -t and --detach-keys are accepted and mean nothing without a terminal.
        if (a == QLatin1String("-t") || a == QLatin1String("--tty"))
            continue;
        if (a == QLatin1String("--detach-keys")) {
            ++i;
            continue;
        }
        if (a == QLatin1String("-it")) {
            rest << QStringLiteral("-i");
            continue;
        }
        rest << a;
        if ((a == QLatin1String("-e") || a == QLatin1String("--env") || a == QLatin1String("-w") || a == QLatin1String("--workdir"))
            && i + 1 < args.size())
            rest << args.at(++i);
    }
    QString error;
    bool usage = false;
    if (!parseExecArgs(rest, &req, &error, &usage))
        return usage ? usageError(error) : fail(error);
    const QString id = cloud.resolve(req.runtime);
    if (id.isEmpty())
        return cloudFail(QStringLiteral("sandbox %1 not found").arg(req.runtime));
    req.runtime = id;
    SandboxMeta meta;
    CloudInfo info;
    {
        StateLock lock(cloud.ctx.state);
        if (!cloud.read(id, &meta, &info))
            return cloudFail(QStringLiteral("sandbox %1 not found").arg(id));
        if (meta.status != QLatin1String("running")) {
            // Whether exec starts a stopped cloud sandbox is UNKNOWN: refused unless told otherwise.
            if (cloud.ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_EXEC_STOPPED")).trimmed() != QLatin1String("start"))
                return cloudFail(QStringLiteral("failedPrecondition: sandbox %1 is stopped: resume it with `sbx --cloud run "
                                                "--detached --name %2`").arg(id, info.name));
            meta.status = QStringLiteral("running");
            info.expiresMs = std::min(QDateTime::currentMSecsSinceEpoch() + info.ttlMs, info.createdMs + cloud.scaled(kCeilingMs));
            cloud.write(meta, info);
        }
    }
    const Context vm{cloud.store, cloud.ctx.faults, cloud.ctx.selfExe};
    if (cloud.ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_EXEC_MERGE_STDERR")) && ::dup2(1, 2) < 0)
        return fail(QStringLiteral("cannot merge stderr into stdout"));
    const bool passEof = !cloud.ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_EXEC_NO_EOF"));
    const bool passStatus = !cloud.ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_EXEC_NO_EXIT_STATUS"));
    if (req.interactive && (!passEof || !passStatus))
        return relayExec(vm, meta, req, passEof, passStatus);
    if (!passStatus)
        return relayExec(vm, meta, req, true, false);
    return execInSandbox(vm, meta, req, 0);
}

int stop(const Cloud &cloud, const ParsedArgs &parsed)
{
    if (parsed.positional.isEmpty())
        return usageError(QStringLiteral("usage: sbx --cloud stop SANDBOX..."));
    StateLock lock(cloud.ctx.state);
    for (const QString &ref : parsed.positional) {
        const QString id = cloud.resolve(ref);
        SandboxMeta meta;
        CloudInfo info;
        // Stop disabled for the account reads as "not found" (M-cloud).
        if (id.isEmpty() || !cloud.read(id, &meta, &info) || !cloud.stopAllowed())
            return cloudFail(QStringLiteral("sandbox %1 not found").arg(ref));
        cloud.stopProcesses(id);
        meta.status = QStringLiteral("stopped");
        info.expiresMs = 0;
        cloud.write(meta, info);
        printOut(QStringLiteral("Stop requested for %1\n").arg(id).toUtf8());
    }
    return 0;
}

int remove(const Cloud &cloud, const ParsedArgs &parsed)
{
    if (parsed.has(QStringLiteral("--all")))
        return cloudFail(QStringLiteral("--all is disabled with --cloud: pass the sandbox IDs explicitly"));
    if (parsed.positional.isEmpty())
        return usageError(QStringLiteral("usage: sbx --cloud rm [--force] SANDBOX..."));
    if (!parsed.has(QStringLiteral("--force")))
        return cloudFail(QStringLiteral("cannot prompt for confirmation: stdin is not a terminal (pass --force)"));
    StateLock lock(cloud.ctx.state);
    for (const QString &ref : parsed.positional) {
        const QString id = cloud.resolve(ref);
        if (id.isEmpty())
            return cloudFail(QStringLiteral("sandbox %1 not found").arg(ref));
        cloud.stopProcesses(id);
        QString error;
        if (!removeTree(cloud.dir(id), &error))
            return fail(error);
        printOut(QStringLiteral("Deleted %1\n").arg(id).toUtf8());
    }
    return 0;
}

int ttl(const Cloud &cloud, const ParsedArgs &parsed)
{
    const QStringList &p = parsed.positional;
    if (p.isEmpty() || p.size() > 2 || (p.size() == 2 && !p.first().startsWith(QLatin1Char('+'))))
        return usageError(QStringLiteral("usage: sbx --cloud ttl [+DURATION] SANDBOX [--json]"));
    StateLock lock(cloud.ctx.state);
    const QString id = cloud.resolve(p.last());
    SandboxMeta meta;
    CloudInfo info;
    if (id.isEmpty() || !cloud.read(id, &meta, &info))
        return cloudFail(QStringLiteral("sandbox %1 not found").arg(p.last()));
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    const qint64 ceiling = info.createdMs + cloud.scaled(kCeilingMs);
    if (p.size() == 2) {
        qint64 add = 0;
        if (!parseDuration(p.first().mid(1), &add) || add <= 0)
            return cloudFail(QStringLiteral("invalid duration \"%1\": a positive duration such as +2h (the server cannot shorten "
                                            "a TTL)").arg(p.first()));
        if (info.expiresMs <= 0)
            return cloudFail(QStringLiteral("failedPrecondition: sandbox %1 is stopped: no deadline is armed").arg(id));
        qint64 wanted = std::max(now, info.expiresMs) + cloud.scaled(add);
        if (wanted > ceiling) {
            // Clamp or error at the 24 h ceiling is UNKNOWN: the fake presents each.
            if (cloud.ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_TTL_OVER_CEILING")).trimmed() == QLatin1String("error"))
                return cloudFail(QStringLiteral("invalidArgument: expiration cannot move beyond 24 hours from creation (%1)").arg(iso(ceiling)));
            wanted = ceiling;
        }
        info.expiresMs = wanted;
        cloud.write(meta, info);
    }
    if (parsed.has(QStringLiteral("--json"))) {
        printOut(QJsonDocument(QJsonObject{{QStringLiteral("id"), id},
                                           {QStringLiteral("expires_at"), info.expiresMs > 0 ? QJsonValue(iso(info.expiresMs)) : QJsonValue()},
                                           {QStringLiteral("max_expires_at"), iso(ceiling)}})
                     .toJson(QJsonDocument::Compact) + '\n');
    } else {
        printOut(QStringLiteral("%1 expires at %2; at most %3 (24h after creation)\n")
                     .arg(id, info.expiresMs > 0 ? iso(info.expiresMs) : QStringLiteral("(no deadline while stopped)"), iso(ceiling))
                     .toUtf8());
    }
    return 0;
}

int ports(const Cloud &cloud, const ParsedArgs &parsed)
{
    if (parsed.positional.size() != 1)
        return usageError(QStringLiteral("usage: sbx --cloud ports SANDBOX [--json] [--publish PORT[/tcp]] [--unpublish PORT[/tcp]]"));
    StateLock lock(cloud.ctx.state);
    const QString id = cloud.resolve(parsed.positional.first());
    SandboxMeta meta;
    CloudInfo info;
    if (id.isEmpty() || !cloud.read(id, &meta, &info))
        return cloudFail(QStringLiteral("sandbox %1 not found").arg(parsed.positional.first()));
    static const QRegularExpression portRe(QStringLiteral("^([0-9]{1,5})(/tcp)?$"));
    for (const char *flag : {"--publish", "--unpublish"}) {
        if (!parsed.has(QLatin1String(flag)))
            continue;
        const QString spec = parsed.value(QLatin1String(flag));
        const QRegularExpressionMatch m = portRe.match(spec);
        if (!m.hasMatch() || m.captured(1).toInt() < 1 || m.captured(1).toInt() > 65535)
            return cloudFail(QStringLiteral("invalid port \"%1\": PORT[/tcp] (host bindings and UDP are refused with --cloud)").arg(spec));
        const QString port = m.captured(1);
        if (QLatin1String(flag) == QLatin1String("--publish")) {
            const QString url = QStringLiteral("https://%1-%2.sandboxes.docker.invalid").arg(id.mid(4), port);
            info.ports.insert(port, url);
            printOut(url.toUtf8() + '\n');
        } else {
            info.ports.remove(port);
        }
        cloud.write(meta, info);
        return 0;
    }
    QJsonArray rows;
    for (auto it = info.ports.begin(); it != info.ports.end(); ++it)
        rows.append(QJsonObject{{QStringLiteral("port"), it.key().toInt()}, {QStringLiteral("protocol"), QStringLiteral("tcp")},
                                {QStringLiteral("url"), it.value().toString()}});
    printOut(QJsonDocument(rows).toJson(QJsonDocument::Compact) + '\n');
    return 0;
}

// cp SRC DST, one side SANDBOX:/absolute/path. /home/agent is the sandbox's HOME.
int copy(const Cloud &cloud, const ParsedArgs &parsed)
{
    if (parsed.positional.size() != 2)
        return usageError(QStringLiteral("usage: sbx --cloud cp SRC DST (one side SANDBOX:/absolute/path)"));
    QStringList paths = parsed.positional;
    int inside = -1;
    for (int i = 0; i < 2; ++i) {
        const qsizetype colon = paths.at(i).indexOf(QLatin1Char(':'));
        if (colon <= 0 || paths.at(i).startsWith(QLatin1Char('/')) || paths.at(i).startsWith(QLatin1Char('.')))
            continue;
        if (inside >= 0)
            return cloudFail(QStringLiteral("copying between two sandboxes is not supported"));
        const QString id = cloud.resolve(paths.at(i).left(colon));
        if (id.isEmpty())
            return cloudFail(QStringLiteral("sandbox %1 not found").arg(paths.at(i).left(colon)));
        QString path = paths.at(i).mid(colon + 1);
        if (!path.startsWith(QLatin1Char('/')))
            return cloudFail(QStringLiteral("use an absolute sandbox path (%1)").arg(path));
        const QString home = cloud.dir(id) + QStringLiteral("/home");
        if (path.startsWith(QLatin1String("/home/agent")))
            path = home + path.mid(11);
        if (!QDir::cleanPath(path).startsWith(home))
            return cloudFail(QStringLiteral("permissionDenied: %1 is outside what the file API reaches").arg(paths.at(i).mid(colon + 1)));
        paths[i] = path;
        inside = i;
    }
    if (inside < 0)
        return cloudFail(QStringLiteral("one side of cp must be SANDBOX:/absolute/path"));
    if (!QFileInfo::exists(paths.at(0)))
        return cloudFail(QStringLiteral("notFound: %1 does not exist").arg(parsed.positional.at(0)));
    QDir().mkpath(QFileInfo(paths.at(1)).absolutePath());
    const int rc = QProcess::execute(QStringLiteral("cp"), {QStringLiteral("-a"), QStringLiteral("--"), paths.at(0), paths.at(1)});
    return rc == 0 ? 0 : cloudFail(QStringLiteral("copy failed"));
}

int diagnose(const Cloud &cloud, const ParsedArgs &parsed)
{
    const bool plan = !cloud.ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_NO_PLAN"));
    const QList<std::pair<QString, bool>> checks{{QStringLiteral("CLI version"), true},
                                                 {QStringLiteral("Docker sign-in"), true},
                                                 {QStringLiteral("Cloud API connectivity"), true},
                                                 {QStringLiteral("Account access"), plan}};
    if (parsed.has(QStringLiteral("--json"))) {
        QJsonArray rows;
        for (const auto &[name, ok] : checks)
            rows.append(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("status"), ok ? QStringLiteral("ok") : QStringLiteral("failed")}});
        printOut(QJsonDocument(QJsonObject{{QStringLiteral("checks"), rows}}).toJson(QJsonDocument::Compact) + '\n');
    } else {
        for (const auto &[name, ok] : checks)
            printOut(QStringLiteral("%1 %2\n").arg(ok ? QStringLiteral("✓") : QStringLiteral("✗"), name).toUtf8());
        if (!plan)
            printOut("No active Docker Agentic Platform subscription on this account: activate it at https://app.docker.com/\n");
    }
    return plan ? 0 : 1;
}

// The cloud's network policy: a store of its own, never the local one (reference/sbx-cloud.md 5.1),
// network rules only: allow, deny, rm, ls, log; no approvals, checks or resets here.
int cloudPolicy(const Context &ctx, const QStringList &args)
{
    const QString sub = args.value(0);
    if (sub != QLatin1String("allow") && sub != QLatin1String("deny") && sub != QLatin1String("rm") && sub != QLatin1String("ls")
        && sub != QLatin1String("log"))
        return cloudFail(QStringLiteral("\"policy %1\" is not supported with --cloud").arg(sub));
    if (args.contains(QStringLiteral("--method")) || args.contains(QStringLiteral("--path")) || args.contains(QStringLiteral("--protocol")))
        return cloudFail(QStringLiteral("HTTP method, path and protocol rules are not supported with --cloud: network rules only"));
    // A sandbox it names must be one of the cloud's (by name or id). The shared policy commands know
    // a sandbox by a directory of its name in their store: the cloud policy store gets one.
    const Cloud cloud(ctx);
    const StateDir policyStore(ctx.state.path(QStringLiteral("cloud-policy")));
    QString error;
    if (!policyStore.ensure(&error))
        return fail(error);
    for (int i = 1; i < args.size(); ++i) {
        const bool flagValue = args.at(i - 1) == QLatin1String("--sandbox");
        const bool logTarget = sub == QLatin1String("log") && i == 1 && !args.at(i).startsWith(QLatin1Char('-'));
        if (!flagValue && !logTarget)
            continue;
        if (cloud.resolve(args.at(i)).isEmpty())
            return cloudFail(QStringLiteral("notFound: sandbox %1 not found").arg(args.at(i)));
        QDir().mkpath(policyStore.sandboxDir(args.at(i)));
    }
    const Context cloudCtx{policyStore, ctx.faults, ctx.selfExe};
    return cmdPolicy(cloudCtx, args);
}

} // namespace

int cmdCloud(const Context &ctx, const QStringList &args)
{
    if (args.isEmpty())
        return usageError(QStringLiteral("sbx --cloud: no command given"));
    if (const int signedIn = requireSignedIn(ctx); signedIn >= 0)
        return signedIn;
    const QString verb = args.first();
    const QStringList rest = args.mid(1);
    const Cloud cloud(ctx);
    QString error;
    if (!cloud.store.ensure(&error))
        return fail(error);
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_UNREACHABLE")))
        return cloudFail(QStringLiteral("unavailable: cannot reach the Docker Sandboxes cloud API (dial tcp: lookup "
                                        "api.sandboxes-cloud.docker.com: no such host)"));
    if (verb == QLatin1String("diagnose"))
        return diagnose(cloud, parseArgs(rest, {QStringLiteral("--json")}, {}));
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_CLOUD_NO_PLAN")))
        return cloudFail(QStringLiteral("permissionDenied: cloud sandboxes need an active Docker Agentic Platform subscription "
                                        "(run `sbx --cloud diagnose`)"));
    // A cloud API round trip per command (no figure in the docs: a stated assumption of 350 ms).
    if (const long delay = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_CLOUD_DELAY_MS"), 350); delay > 0)
        sleepMs(delay);
    {
        StateLock lock(ctx.state);
        cloud.expire();
    }
    if (verb == QLatin1String("exec"))
        return exec(cloud, rest);
    if (verb == QLatin1String("move"))   // "The move command spans both backends" (M-move)
        return cloudFail(QStringLiteral("sbx move spans both backends: run it without --cloud"));
    if (verb == QLatin1String("policy"))
        return cloudPolicy(ctx, rest);
    if (verb == QLatin1String("template"))
        return cmdCloudTemplate(ctx, rest);
    ParsedArgs parsed;
    if (verb == QLatin1String("create") || verb == QLatin1String("run")) {
        QStringList longForms = rest;   // short forms: -d, -t (--template)
        longForms.replaceInStrings(QRegularExpression(QStringLiteral("^-d$")), QStringLiteral("--detached"));
        longForms.replaceInStrings(QRegularExpression(QStringLiteral("^-t$")), QStringLiteral("--template"));
        parsed = parseArgs(longForms, {QStringLiteral("--quiet"), QStringLiteral("--clone"), QStringLiteral("--detached")}, kCreateValues);
        if (!parsed.ok)
            return fail(parsed.error);
        return verb == QLatin1String("create") ? create(cloud, parsed) : run(cloud, parsed);
    }
    if (verb == QLatin1String("ls") || verb == QLatin1String("list"))
        parsed = parseArgs(QStringList(rest).replaceInStrings(QRegularExpression(QStringLiteral("^-q$")), QStringLiteral("--quiet")),
                           {QStringLiteral("--json"), QStringLiteral("--quiet")}, {});
    else if (verb == QLatin1String("stop"))
        parsed = parseArgs(rest, {}, {});
    else if (verb == QLatin1String("rm") || verb == QLatin1String("remove") || verb == QLatin1String("delete"))
        parsed = parseArgs(QStringList(rest).replaceInStrings(QRegularExpression(QStringLiteral("^-f$")), QStringLiteral("--force")),
                           {QStringLiteral("--force"), QStringLiteral("--all")}, {});
    else if (verb == QLatin1String("ttl"))
        parsed = parseArgs(rest, {QStringLiteral("--json")}, {});
    else if (verb == QLatin1String("ports"))
        parsed = parseArgs(rest, {QStringLiteral("--json")}, {QStringLiteral("--publish"), QStringLiteral("--unpublish")});
    else if (verb == QLatin1String("cp"))
        parsed = parseArgs(rest, {QStringLiteral("-L")}, {});
    else
        return cloudFail(QStringLiteral("\"%1\" is not supported with --cloud by this fake").arg(verb));
    if (!parsed.ok)
        return fail(parsed.error);
    if (verb == QLatin1String("ls") || verb == QLatin1String("list"))
        return list(cloud, parsed);
    if (verb == QLatin1String("stop"))
        return stop(cloud, parsed);
    if (verb == QLatin1String("ttl"))
        return ttl(cloud, parsed);
    if (verb == QLatin1String("ports"))
        return ports(cloud, parsed);
    if (verb == QLatin1String("cp"))
        return copy(cloud, parsed);
    return remove(cloud, parsed);
}

int printCloudListing(const Context &ctx, bool quiet, bool json, const QJsonArray &rows, const QStringList &lines, const QString &key)
{
    if (quiet) {
        for (const QJsonValue &r : rows)
            printOut(r.toObject().value(QStringLiteral("id")).toString().toUtf8() + '\n');
        return 0;
    }
    if (!json) {
        printOut(lines.join(QLatin1Char('\n')).toUtf8() + '\n');
        return 0;
    }
    // The page leaves the JSON shape UNKNOWN: the fake presents each plausible one.
    const QString shape = ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_LS_SHAPE")).trimmed();
    const QJsonDocument doc = shape == QLatin1String("array") ? QJsonDocument(rows)
                              : shape == QLatin1String("items") ? QJsonDocument(QJsonObject{{QStringLiteral("items"), rows}})
                                                                : QJsonDocument(QJsonObject{{key, rows}});
    printOut(doc.toJson(QJsonDocument::Compact) + '\n');
    return 0;
}

// ---- the cloud side of `sbx move` (sbx-cloud.md §6) ----------------------------------------------

bool cloudFind(const Context &ctx, const QString &ref, CloudSandboxView *out)
{
    const Cloud cloud(ctx);
    StateLock lock(ctx.state);
    cloud.expire();
    const QString id = cloud.resolve(ref);
    SandboxMeta meta;
    CloudInfo info;
    if (id.isEmpty() || !cloud.read(id, &meta, &info))
        return false;
    *out = {info.id, info.name, meta.status, cloud.dir(id) + QStringLiteral("/home"), info.cpus, info.memoryMib};
    return true;
}

QString cloudMoveRefusal(const Context &ctx, const CloudReceive &spec)
{
    const Cloud cloud(ctx);
    if (spec.memoryMib > kSizes[4].memoryMib)
        return QStringLiteral("the sandbox's limits (%1 MiB of memory) are above the largest cloud size (xl: 16 CPUs, 32 GiB): "
                              "nothing was captured").arg(spec.memoryMib);
    if (!spec.ttl.isEmpty()) {
        qint64 ms = 0;
        if (!parseDuration(spec.ttl, &ms) || ms < 15000 || ms > kCeilingMs)
            return QStringLiteral("invalid --ttl \"%1\": between 15s and 24h").arg(spec.ttl);
    }
    if (!spec.onTimeout.isEmpty() && spec.onTimeout != QLatin1String("stop") && spec.onTimeout != QLatin1String("delete"))
        return QStringLiteral("invalid --on-timeout \"%1\": stop or delete").arg(spec.onTimeout);
    if (spec.onTimeout == QLatin1String("stop") && !cloud.stopAllowed())
        return QStringLiteral("failedPrecondition: stopping sandboxes is not enabled for this account (--on-timeout stop)");
    return {};
}

int cloudReceive(const Context &ctx, const QString &fromHome, const CloudReceive &spec, CloudSandboxView *out,
                 QStringList *warnings)
{
    const Cloud cloud(ctx);
    CloudInfo info;
    // Recorded limits are rounded up to a cloud size; none recorded: the cloud's default, with a warning.
    info.cpus = kSizes[1].cpus;
    info.memoryMib = kSizes[1].memoryMib;
    if (spec.memoryMib <= 0) {
        warnings->append(QStringLiteral("no CPU or memory limits are recorded for the sandbox: the cloud sandbox gets the default "
                                        "size (small: 2 CPUs, 4 GiB)"));
    } else {
        for (const Size &sz : kSizes) {
            if (sz.memoryMib >= spec.memoryMib) {
                info.cpus = sz.cpus;
                info.memoryMib = sz.memoryMib;
                break;
            }
        }
    }
    qint64 ttl = kHourMs;
    if (!spec.ttl.isEmpty())
        parseDuration(spec.ttl, &ttl);
    info.id = QStringLiteral("sbx_") + QString::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, QLatin1Char('0')).left(12);
    info.name = spec.namePrefix + QLatin1Char('-') + info.id.mid(4, 4);
    if (!validCloudName(info.name))
        return cloudFail(QStringLiteral("invalid destination name \"%1\": letters, digits and hyphens (periods are rejected in the "
                                        "cloud); pass --name").arg(info.name));
    info.createdMs = QDateTime::currentMSecsSinceEpoch();
    info.ttlMs = cloud.scaled(ttl);
    info.expiresMs = info.createdMs + info.ttlMs;
    // The move asks for stop on expiry where the account and sandbox allow it, else the default.
    info.onTimeout = !spec.onTimeout.isEmpty() ? spec.onTimeout : cloud.stopAllowed() ? QStringLiteral("stop") : QString();
    SandboxMeta meta;
    meta.name = info.id;
    meta.workspace = cloud.dir(info.id) + QStringLiteral("/home");
    meta.mountSource = meta.workspace;
    meta.status = QStringLiteral("running");
    meta.created = iso(info.createdMs);
    const int maxConcurrent = ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_MAX_CONCURRENT")).trimmed().isEmpty()
                                  ? 10 : ctx.faults.value(QStringLiteral("FAKE_SBX_CLOUD_MAX_CONCURRENT")).toInt();
    {
        StateLock lock(ctx.state);
        int running = 0;
        for (const QString &id : cloud.ids()) {
            SandboxMeta other;
            CloudInfo otherInfo;
            if (cloud.read(id, &other, &otherInfo))
                running += other.status == QLatin1String("running") ? 1 : 0;
        }
        if (running >= maxConcurrent)
            return cloudFail(QStringLiteral("resourceExhausted: the quota of %1 concurrent cloud sandboxes is reached: stop or "
                                            "remove one").arg(maxConcurrent));
        QString error;
        if (!QDir().mkpath(cloud.dir(info.id) + QStringLiteral("/tmp")) ||
            !copyTreeContents(fromHome, cloud.dir(info.id) + QStringLiteral("/home"), &error) || !cloud.write(meta, info))
            return fail(QStringLiteral("cannot create the cloud sandbox: %1").arg(error));
    }
    *out = {info.id, info.name, meta.status, cloud.dir(info.id) + QStringLiteral("/home"), info.cpus, info.memoryMib};
    return 0;
}

bool cloudStopAfterMove(const Context &ctx, const QString &id, QString *warning)
{
    const Cloud cloud(ctx);
    StateLock lock(ctx.state);
    SandboxMeta meta;
    CloudInfo info;
    if (!cloud.read(id, &meta, &info))
        return true;
    if (!cloud.stopAllowed()) {
        *warning = QStringLiteral("the cloud sandbox %1 could not be stopped (this account cannot stop sandboxes): it is still "
                                  "running; remove it with `sbx --cloud rm %1`").arg(id);
        return false;
    }
    cloud.stopProcesses(id);
    meta.status = QStringLiteral("stopped");
    info.expiresMs = 0;
    cloud.write(meta, info);
    return true;
}

} // namespace fakesbx
