#include "ProcessKiller.h"

#include "Faults.h"
#include "FsOps.h"

#include <QByteArray>
#include <QFile>
#include <QSet>

#include <cstdlib>
#include <dirent.h>
#include <signal.h>
#include <unistd.h>

namespace fakesbx {

namespace {

bool hasEnvEntry(pid_t pid, const QByteArray &entry)
{
    QFile file(QStringLiteral("/proc/%1/environ").arg(pid));
    if (!file.open(QIODevice::ReadOnly))
        return false;
    const QList<QByteArray> entries = file.readAll().split('\0');
    return entries.contains(entry);
}

QList<pid_t> findProcesses(const QByteArray &entry)
{
    QList<pid_t> pids;
    DIR *proc = ::opendir("/proc");
    if (!proc)
        return pids;
    const pid_t self = ::getpid();
    while (struct dirent *e = ::readdir(proc)) {
        char *end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0' || pid == self)
            continue;
        if (hasEnvEntry(static_cast<pid_t>(pid), entry))
            pids << static_cast<pid_t>(pid);
    }
    ::closedir(proc);
    return pids;
}

QByteArray sandboxEntry(const QString &runtime)
{
    return QByteArrayLiteral("FAKE_SBX_SANDBOX=") + runtime.toLocal8Bit();
}

} // namespace

QList<pid_t> sandboxProcesses(const QString &runtime)
{
    return findProcesses(sandboxEntry(runtime));
}

int killSandboxProcesses(const QString &runtime)
{
    const QByteArray entry = sandboxEntry(runtime);
    QSet<pid_t> signalled;
    for (int round = 0; round < 100; ++round) {
        const QList<pid_t> pids = findProcesses(entry);
        if (pids.isEmpty())
            break;
        for (pid_t pid : pids) {
            ::kill(pid, SIGKILL);
            signalled.insert(pid);
        }
        sleepMs(10);
    }
    return static_cast<int>(signalled.size());
}

FrozenSandbox::FrozenSandbox(const QString &runtime)
{
    // A process may fork while the first ones are being stopped: scan until a scan finds nothing new.
    const QByteArray entry = sandboxEntry(runtime);
    QSet<pid_t> stopped;
    for (int round = 0; round < 20; ++round) {
        bool added = false;
        for (pid_t pid : findProcesses(entry)) {
            if (stopped.contains(pid) || ::kill(pid, SIGSTOP) != 0)
                continue;
            stopped.insert(pid);
            m_stopped << pid;
            added = true;
        }
        if (!added)
            break;
    }
}

FrozenSandbox::~FrozenSandbox()
{
    for (pid_t pid : std::as_const(m_stopped))
        ::kill(pid, SIGCONT);
}

bool captureTreeContents(const QString &runtime, const QString &from, const QString &to, QString *error)
{
    for (int attempt = 1;; ++attempt) {
        {
            const FrozenSandbox captured(runtime);
            if (copyTreeContents(from, to, error))
                return true;
        }
        QString ignored;
        if (attempt == 3 || !removeTree(to, &ignored))
            return false;
    }
}

} // namespace fakesbx
