#include "Lifecycle.h"

#include "FsOps.h"
#include "PortForwarder.h"
#include "ProcessKiller.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace fakesbx {

namespace {

void forwardAgain(const Context &ctx, SandboxMeta *meta)
{
    if (ctx.faults.enabled(QStringLiteral("FAKE_SBX_NO_FORWARD")))
        return;
    QList<PortMapping> kept;
    for (const PortMapping &p : std::as_const(meta->ports)) {
        if (!p.protocol.startsWith(QLatin1String("tcp")) || p.hostPort == p.sandboxPort) {
            kept << p;
            continue;
        }
        QString error;
        int port = 0;
        const int fd = openListener(p.hostIp, p.hostPort, &port, &error);
        if (fd < 0)
            continue;  // the host port was taken meanwhile: the mapping is gone
        const bool started = spawnForwarder(ctx.selfExe, meta->name, ctx.state.sandboxDir(meta->name), fd,
                                            p.sandboxPort, &error);
        ::close(fd);
        if (started)
            kept << p;
    }
    meta->ports = kept;
}

} // namespace

// Field 22 of /proc/<pid>/stat: tells a process from a later one that reuses its pid.
QByteArray processStartTime(long pid)
{
    QFile file(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray stat = file.readAll();
    const qsizetype close = stat.lastIndexOf(')');
    if (close < 0)
        return {};
    const QList<QByteArray> fields = stat.mid(close + 2).split(' ');
    // fields[0] is field 3 (state); a zombie has ended.
    if (fields.size() < 20 || fields.at(0) == "Z")
        return {};
    return fields.at(19);
}

QString identity(long pid)
{
    return QStringLiteral("%1-%2").arg(pid).arg(QString::fromLatin1(processStartTime(pid)));
}

bool identityAlive(const QString &id)
{
    const qsizetype dash = id.indexOf(QLatin1Char('-'));
    if (dash <= 0)
        return false;
    const long pid = id.left(dash).toLong();
    const QByteArray start = processStartTime(pid);
    return pid > 0 && !start.isEmpty() && start == id.mid(dash + 1).toLatin1();
}

QString attachedDir(const StateDir &state, const QString &runtime)
{
    return state.sandboxDir(runtime) + QStringLiteral("/attached");
}

QString watcherFile(const StateDir &state, const QString &runtime)
{
    return state.sandboxDir(runtime) + QStringLiteral("/idle-watcher");
}

// Double fork: the process is re-parented at once (nobody has to reap it) and never holds the
// caller's descriptors. Returns its pid, or -1.
long spawnDetached(std::vector<std::string> argStore, std::vector<std::string> envStore, int keepFd)
{
    for (const char *keep : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "FAKE_SBX_IDLE_STOP_MS"}) {
        if (const char *v = ::getenv(keep))
            envStore.push_back(std::string(keep) + "=" + v);
    }
    std::vector<char *> argv, envp;
    for (std::string &s : argStore)
        argv.push_back(s.data());
    argv.push_back(nullptr);
    for (std::string &s : envStore)
        envp.push_back(s.data());
    envp.push_back(nullptr);
    int pipeFds[2];
    if (::pipe2(pipeFds, O_CLOEXEC) != 0)
        return -1;
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(pipeFds[0]);
        ::close(pipeFds[1]);
        return -1;
    }
    if (child == 0) {
        ::close(pipeFds[0]);
        const pid_t grandchild = ::fork();
        if (grandchild != 0) {
            const long id = grandchild;
            if (::write(pipeFds[1], &id, sizeof id) != static_cast<ssize_t>(sizeof id))
                ::_exit(1);
            ::_exit(0);
        }
        ::setsid();
        const int devNull = ::open("/dev/null", O_RDWR);
        ::dup2(devNull, 0);
        ::dup2(devNull, 1);
        ::dup2(devNull, 2);
        if (keepFd >= 0) {
            if (keepFd == 3)
                ::fcntl(3, F_SETFD, 0);
            else if (::dup2(keepFd, 3) != 3)
                ::_exit(127);
        }
        closeDescriptorsFrom(keepFd >= 0 ? 4 : 3);
        if (::chdir("/") != 0)
            ::_exit(127);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(pipeFds[1]);
    long id = -1;
    ssize_t n;
    do {
        n = ::read(pipeFds[0], &id, sizeof id);
    } while (n < 0 && errno == EINTR);
    ::close(pipeFds[0]);
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return n == static_cast<ssize_t>(sizeof id) ? id : -1;
}


long idleStopMs(const Faults &faults)
{
    const QString v = faults.value(QStringLiteral("FAKE_SBX_IDLE_STOP_MS")).trimmed();
    if (v.isEmpty())
        return 5000;
    if (v == QLatin1String("off"))
        return -1;
    bool ok = false;
    const long ms = v.toLong(&ok);
    return ok ? ms : 5000;
}

void registerAttached(const StateDir &state, const QString &runtime)
{
    const QString dir = attachedDir(state, runtime);
    QDir().mkpath(dir);
    QFile file(dir + QLatin1Char('/') + identity(static_cast<long>(::getpid())));
    file.open(QIODevice::WriteOnly);
}

int attachedCount(const StateDir &state, const QString &runtime)
{
    QDir dir(attachedDir(state, runtime));
    int alive = 0;
    const QStringList entries = dir.entryList(QDir::Files);
    for (const QString &entry : entries) {
        if (identityAlive(entry))
            ++alive;
        else
            dir.remove(entry);
    }
    return alive;
}

bool stopSandbox(const Context &ctx, SandboxMeta *meta, QString *error)
{
    killSandboxProcesses(meta->name);
    QString ignored;
    removeTree(attachedDir(ctx.state, meta->name), &ignored);
    meta->status = QStringLiteral("stopped");
    return ctx.state.writeMeta(*meta, error);
}

bool startSandbox(const Context &ctx, SandboxMeta *meta, QString *error)
{
    forwardAgain(ctx, meta);
    meta->status = QStringLiteral("running");
    meta->mountSource = QFileInfo(meta->workspace).canonicalFilePath();   // shared again at every start
    if (!ctx.state.writeMeta(*meta, error))
        return false;
    ensureIdleWatcher(ctx, meta->name);
    std::fprintf(stderr, "Sandbox %s started successfully\n", meta->name.toLocal8Bit().constData());
    std::fflush(stderr);
    return true;
}

void ensureIdleWatcher(const Context &ctx, const QString &runtime)
{
    const QString recordPath = watcherFile(ctx.state, runtime);
    QFile current(recordPath);
    if (current.open(QIODevice::ReadOnly) && identityAlive(QString::fromLatin1(current.readAll().trimmed())))
        return;
    current.close();
    const long pid = spawnDetached({ctx.selfExe.toStdString(), "__idle-watch", runtime.toStdString()},
                                   {"FAKE_SBX_STATE=" + ctx.state.root().toStdString(),
                                    "FAKE_SBX_SANDBOX=" + runtime.toStdString(),
                                    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"});
    if (pid <= 0)
        return;
    QSaveFile record(recordPath);
    if (record.open(QIODevice::WriteOnly)) {
        record.write(identity(pid).toLatin1());
        record.commit();
    }
}

namespace {

// Blocks, without CPU, until no attached exec is alive: one pidfd per attached process, polled until
// one exits, then looked at again (a thousand watchers polling every 250 ms kept the bench's
// 2-core machine busy while their sandboxes were attached).
void waitUntilDetached(const StateDir &state, const QString &runtime)
{
    for (;;) {
        std::vector<pollfd> fds;
        const QStringList entries = QDir(attachedDir(state, runtime)).entryList(QDir::Files);
        for (const QString &entry : entries) {
            const long pid = entry.left(entry.indexOf(QLatin1Char('-'))).toLong();
            const int fd = pid > 0 ? int(::syscall(SYS_pidfd_open, pid, 0)) : -1;
            if (fd < 0)
                continue;
            if (identityAlive(entry))   // after opening: the pidfd is that process, not a reused pid
                fds.push_back(pollfd{fd, POLLIN, 0});
            else
                ::close(fd);
        }
        if (fds.empty())
            return;
        ::poll(fds.data(), fds.size(), 10000);   // a pidfd turns readable when its process exits
        for (const pollfd &p : fds)
            ::close(p.fd);
    }
}

} // namespace

int runIdleWatcher(const QStringList &args)
{
    if (args.size() != 2)
        return 2;
    const QString runtime = args.at(1);
    Context ctx{StateDir(qEnvironmentVariable("FAKE_SBX_STATE")), Faults(),
                QFileInfo(QStringLiteral("/proc/self/exe")).symLinkTarget()};
    const QString metaPath = ctx.state.sandboxDir(runtime) + QStringLiteral("/meta.json");
    QElapsedTimer idle;
    idle.start();
    // One watcher per running sandbox: with a thousand of them (bench/ scale) a 100 ms poll alone
    // kept a core busy and slowed whatever was measured. The poll is a twentieth of the grace
    // period, 20 to 250 ms (250 ms for the default 5 s), and 1 s when auto-stop is off.
    long pollMs = 100;
    for (;;) {
        sleepMs(pollMs);
        if (!QFileInfo::exists(metaPath))
            return 0;  // removed
        ctx.faults = Faults::load(ctx.state.path(QStringLiteral("faults.env")));
        const long grace = idleStopMs(ctx.faults);
        pollMs = grace < 0 ? 1000 : std::clamp(grace / 20, 20L, 250L);
        if (attachedCount(ctx.state, runtime) > 0) {
            waitUntilDetached(ctx.state, runtime);
            idle.restart();
            continue;
        }
        if (grace < 0 || idle.elapsed() < grace)
            continue;
        StateLock lock(ctx.state);
        SandboxMeta meta;
        if (!lock.ok() || !ctx.state.readMeta(runtime, &meta) || meta.status != QLatin1String("running"))
            return 0;  // removed or stopped by someone else
        if (attachedCount(ctx.state, runtime) > 0) {
            idle.restart();
            continue;  // an exec attached while we waited for the lock
        }
        QString error;
        stopSandbox(ctx, &meta, &error);
        return 0;
    }
}

} // namespace fakesbx
