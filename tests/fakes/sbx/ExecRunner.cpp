#include "ExecRunner.h"

#include "Commands.h"
#include "FieldFaults.h"
#include "Daemon.h"
#include "FsOps.h"
#include "Lifecycle.h"
#include "PolicyProxy.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace fakesbx {

namespace {

const char kSandboxPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
const char kSandboxUser[] = "agent";

void setEnv(std::vector<std::string> *env, const std::string &name, const std::string &value)
{
    const std::string prefix = name + "=";
    for (std::string &entry : *env) {
        if (entry.compare(0, prefix.size(), prefix) == 0) {
            entry = prefix + value;
            return;
        }
    }
    env->push_back(prefix + value);
}

std::vector<char *> cStrings(std::vector<std::string> &strings)
{
    std::vector<char *> out;
    for (std::string &s : strings)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

bool underPath(const QString &path, const QString &root)
{
    return path == root || path.startsWith(root + QLatin1Char('/'));
}

} // namespace

bool parseExecArgs(const QStringList &args, ExecRequest *req, QString *error, bool *usage)
{
    *usage = false;
    int i = 0;
    auto takeValue = [&](const QString &flag, QString *out) {
        if (i + 1 >= args.size()) {
            *error = QStringLiteral("flag needs an argument: %1").arg(flag);
            return false;
        }
        *out = args.at(++i);
        return true;
    };
    for (; i < args.size(); ++i) {
        const QString &a = args.at(i);
        if (!a.startsWith(QLatin1Char('-')) || a == QLatin1String("-"))
            break;
        QString value;
        if (a == QLatin1String("-d") || a == QLatin1String("--detach")) {
            *error = QStringLiteral("ERROR: detached exec (-d) is not supported");
            return false;
        } else if (a == QLatin1String("-i") || a == QLatin1String("--interactive")) {
            req->interactive = true;
        } else if (a == QLatin1String("-u") || a == QLatin1String("--user")) {
            if (!takeValue(a, &req->user))
                return false;
        } else if (a.startsWith(QLatin1String("--user="))) {
            req->user = a.mid(7);
        } else if (a == QLatin1String("-e") || a == QLatin1String("--env")) {
            if (!takeValue(a, &value))
                return false;
            req->env << value;
        } else if (a.startsWith(QLatin1String("--env="))) {
            req->env << a.mid(6);
        } else if (a == QLatin1String("-w") || a == QLatin1String("--workdir")) {
            if (!takeValue(a, &req->workdir))
                return false;
        } else if (a.startsWith(QLatin1String("--workdir="))) {
            req->workdir = a.mid(10);
        } else {
            *error = QStringLiteral("unknown flag: %1").arg(a);
            return false;
        }
    }
    if (i + 1 >= args.size()) {
        *usage = true;
        *error = QStringLiteral("usage: sbx exec [-i] [-u root] [-e NAME]... [-w DIR] <sandbox> <command> [args...]");
        return false;
    }
    for (const QString &e : std::as_const(req->env)) {
        if (e.isEmpty() || e.startsWith(QLatin1Char('='))) {
            *error = QStringLiteral("invalid environment variable \"%1\"").arg(e);
            return false;
        }
    }
    req->runtime = args.at(i);
    req->command = args.mid(i + 1);
    return true;
}

QString usableBwrap(const QString &probeCacheFile, bool disabled)
{
    if (disabled)
        return {};
    const QString bwrap = QStandardPaths::findExecutable(QStringLiteral("bwrap"));
    if (bwrap.isEmpty())
        return {};
    QFile cached(probeCacheFile);
    if (cached.open(QIODevice::ReadOnly))
        return cached.readAll().trimmed() == "ok" ? bwrap : QString();
    const int rc = runAndWait({bwrap, QStringLiteral("--ro-bind"), QStringLiteral("/"), QStringLiteral("/"),
                               QStringLiteral("--dev"), QStringLiteral("/dev"), QStringLiteral("--proc"),
                               QStringLiteral("/proc"), QStringLiteral("true")});
    QSaveFile out(probeCacheFile);
    if (out.open(QIODevice::WriteOnly)) {
        out.write(rc == 0 ? "ok\n" : "fail\n");
        out.commit();
    }
    return rc == 0 ? bwrap : QString();
}

namespace {

// No exec attached now and none started for FAKE_SBX_IDLE_EXEC_AFTER_MS (default 10 s), or
// never one since the sandbox was created.
bool satIdle(const Context &ctx, const QString &runtime)
{
    if (attachedCount(ctx.state, runtime) > 0)
        return false;
    QFile last(ctx.state.sandboxDir(runtime) + QStringLiteral("/last-exec"));
    if (!last.open(QIODevice::ReadOnly))
        return true;
    bool ok = false;
    const qint64 at = last.readAll().trimmed().toLongLong(&ok);
    const QString after = ctx.faults.value(QStringLiteral("FAKE_SBX_IDLE_EXEC_AFTER_MS")).trimmed();
    const qint64 idleAfter = after.isEmpty() ? 10000 : after.toLongLong();
    return !ok || QDateTime::currentMSecsSinceEpoch() - at >= idleAfter;
}

} // namespace

int cmdExec(const Context &ctx, const QStringList &args)
{
    ExecRequest req;
    QString error;
    bool usage = false;
    if (!parseExecArgs(args, &req, &error, &usage))
        return usage ? usageError(error) : fail(error);

    const QString match = ctx.faults.value(QStringLiteral("FAKE_SBX_FAIL_EXEC_MATCH"));
    if (!match.isEmpty() && req.command.join(QLatin1Char(' ')).contains(match))
        return fail(QStringLiteral("injected exec failure (command matches \"%1\")").arg(match));

    SandboxMeta meta;
    int proxyPort = 0;
    // Waking a stopped VM takes time (FAKE_SBX_START_DELAY_MS), outside the state lock as other
    // commands go on meanwhile.
    if (ctx.state.readMeta(req.runtime, &meta) && meta.status == QLatin1String("stopped")) {
        if (const long delay = ctx.faults.value(QStringLiteral("FAKE_SBX_START_DELAY_MS")).trimmed().toLong(); delay > 0)
            sleepMs(delay);
    } else if (meta.status == QLatin1String("running") && satIdle(ctx, req.runtime)) {
        // The first exec into a running sandbox that sat idle takes 5-6 s on real sbx, the next
        // ones are near-instant (sbx-releases#352, v0.34).
        if (const long delay = profileDelayMs(ctx.faults, QStringLiteral("FAKE_SBX_IDLE_EXEC_DELAY_MS"), 5500); delay > 0)
            sleepMs(delay);
    }
    {
        StateLock lock(ctx.state);
        if (!lock.ok())
            return 1;
        if (!ctx.state.readMeta(req.runtime, &meta) || meta.status == QLatin1String("creating"))
            return fail(QStringLiteral("ERROR: no sandbox named '%1'").arg(req.runtime));
        if (meta.status != QLatin1String("running")) {
            const int policy = requirePolicy(ctx);
            if (policy >= 0)
                return policy;
            if (const int executor = requireExecutor(ctx); executor >= 0)
                return executor;
            if (!startSandbox(ctx, &meta, &error))
                return fail(error);
        }
        registerAttached(ctx.state, req.runtime);
        // Written beside and renamed (whole for any reader), not synced: a QSaveFile's fsync on every
        // exec cost ~10 ms, which no real exec pays.
        const QString lastPath = ctx.state.sandboxDir(req.runtime) + QStringLiteral("/last-exec");
        QFile last(lastPath + QStringLiteral(".%1").arg(::getpid()));
        if (last.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
            last.write(QByteArray::number(QDateTime::currentMSecsSinceEpoch()));
            last.close();
            ::rename(QFile::encodeName(last.fileName()).constData(), QFile::encodeName(lastPath).constData());
        }
        ensureIdleWatcher(ctx, req.runtime);
        proxyPort = ensureProxy(ctx, req.runtime);
    }
    return execInSandbox(ctx, meta, req, proxyPort);
}

int execInSandbox(const Context &ctx, const SandboxMeta &meta, const ExecRequest &req, int proxyPort)
{
    const QString dir = ctx.state.sandboxDir(req.runtime);
    const QString home = dir + QStringLiteral("/home");
    const QString tmp = dir + QStringLiteral("/tmp");
    const QString workspace = meta.workspace;
    const QString source = meta.clone ? dir + QStringLiteral("/clone")
                           : meta.mountSource.isEmpty() ? workspace : meta.mountSource;
    const QString bwrap = usableBwrap(ctx.state.path(QStringLiteral("bwrap-probe")),
                                      ctx.faults.enabled(QStringLiteral("FAKE_SBX_NO_BWRAP")));

    // Inside bubblewrap the workspace (or its clone) sits at the workspace path; without it the
    // clone is addressed on the host, so a -w below the workspace is redirected into the clone.
    QString cwd = req.workdir.isEmpty() ? workspace : QDir::cleanPath(req.workdir);
    if (bwrap.isEmpty() && meta.clone && underPath(cwd, workspace))
        cwd = source + cwd.mid(workspace.size());

    // The sandbox's private Docker Engine (vm-bin/docker): its images live beside HOME, never in it,
    // as /var/lib/docker is never in a template.
    const QString dockerRoot = dir + QStringLiteral("/docker");
    QDir().mkpath(dockerRoot);
    const QString vmBin = QFileInfo(ctx.selfExe).absolutePath() + QStringLiteral("/vm-bin");
    const bool vmDocker = QFileInfo(vmBin + QStringLiteral("/docker")).isExecutable();
    const std::string path = vmDocker ? vmBin.toStdString() + ":" + kSandboxPath : std::string(kSandboxPath);
    std::vector<std::string> env;
    setEnv(&env, "PATH", path);
    setEnv(&env, "FAKE_DOCKER_ROOT", dockerRoot.toStdString());
    setEnv(&env, "HOME", home.toStdString());
    setEnv(&env, "USER", req.user.isEmpty() ? std::string(kSandboxUser) : req.user.toStdString());
    setEnv(&env, "LANG", "C.UTF-8");
    setEnv(&env, "TMPDIR", bwrap.isEmpty() ? tmp.toStdString() : std::string("/tmp"));
    setEnv(&env, "FAKE_SBX_SANDBOX", req.runtime.toStdString());
    if (proxyPort > 0) {
        const std::string proxy = "http://127.0.0.1:" + std::to_string(proxyPort);
        for (const char *name : {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"})
            setEnv(&env, name, proxy);
    }
    for (const QString &e : std::as_const(req.env)) {
        const qsizetype eq = e.indexOf(QLatin1Char('='));
        if (eq > 0) {
            setEnv(&env, e.left(eq).toStdString(), e.mid(eq + 1).toStdString());
        } else if (const char *v = ::getenv(e.toLocal8Bit().constData())) {
            setEnv(&env, e.toStdString(), v);
        }
    }

    const bool hasPwd = std::any_of(env.begin(), env.end(), [](const std::string &e) { return e.rfind("PWD=", 0) == 0; });
    std::vector<std::string> argv;
    if (!bwrap.isEmpty()) {
        argv = {bwrap.toStdString(), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--bind", tmp.toStdString(), "/tmp",
                "--bind", home.toStdString(), home.toStdString(),
                "--bind", dockerRoot.toStdString(), dockerRoot.toStdString(),
                "--bind", source.toStdString(), workspace.toStdString()};
        // A build tree under /tmp (a fresh clone there) is hidden by the sandbox's own /tmp: its
        // vm-bin is bound again, or the host's docker (if any) would answer in the fake's place.
        if (vmDocker)
            argv.insert(argv.end(), {"--ro-bind", vmBin.toStdString(), vmBin.toStdString()});
        // The shell only execs the command; it turns "not found" into exit 127 like docker exec,
        // and drops the PWD it would otherwise add to the environment.
        argv.insert(argv.end(), {"--chdir", cwd.toStdString(), "--", "/bin/sh", "-c",
                                 hasPwd ? "exec \"$@\"" : "unset PWD; exec \"$@\"", "sh"});
    }
    for (const QString &a : std::as_const(req.command))
        argv.push_back(a.toLocal8Bit().toStdString());
    std::vector<char *> cargv = cStrings(argv);
    std::vector<char *> cenv = cStrings(env);

    if (!req.interactive) {
        const int devNull = ::open("/dev/null", O_RDONLY);
        if (devNull < 0 || ::dup2(devNull, 0) < 0)
            return fail(QStringLiteral("cannot redirect stdin"));
    }
    closeDescriptorsFrom(3);
    std::fflush(stdout);
    std::fflush(stderr);
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_EXEC_MERGE_STDERR")) && ::dup2(1, 2) < 0)
        return fail(QStringLiteral("cannot merge stderr into stdout"));
    if (!bwrap.isEmpty()) {
        ::execve(cargv[0], cargv.data(), cenv.data());
        return fail(QStringLiteral("cannot start %1: %2").arg(bwrap, QString::fromLocal8Bit(std::strerror(errno))));
    }
    if (::chdir(cwd.toLocal8Bit().constData()) != 0)
        return fail(QStringLiteral("cannot change directory to %1: %2").arg(cwd, QString::fromLocal8Bit(std::strerror(errno))));
    environ = cenv.data();  // execvp searches the sandbox PATH
    // `sbx exec` on the host is a client of a process in the VM, not that process: killed, it leaves
    // the command running, which sees its stdin end when the caller's end closes (as with bubblewrap
    // above, whose process is the one a kill ends). So the command is a child this process waits for.
    const pid_t child = ::fork();
    if (child < 0)
        return fail(QStringLiteral("cannot start %1: %2").arg(req.command.value(0), QString::fromLocal8Bit(std::strerror(errno))));
    if (child == 0) {
        ::execvp(cargv[0], cargv.data());
        const int err = errno;
        std::fprintf(stderr, "exec: \"%s\": %s\n", cargv[0],
                     err == ENOENT ? "executable file not found in $PATH" : std::strerror(err));
        ::_exit(err == ENOENT ? 127 : 126);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR)
            return fail(QStringLiteral("cannot wait for %1: %2").arg(req.command.value(0), QString::fromLocal8Bit(std::strerror(errno))));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace fakesbx
