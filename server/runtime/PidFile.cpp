#include "runtime/PidFile.h"

#include <QFile>

#include <cerrno>
#include <csignal>

namespace chat2sbx {

PidFile::PidFile(const QString &path) : m_path(path), m_lock(path)
{
    // Stale only when its process is gone: the default (30 s old) would take a live server's file.
    m_lock.setStaleLockTime(0);
}

PidFile::~PidFile()
{
    release();
}

qint64 PidFile::runningPid(const QString &path)
{
    qint64 pid = 0;
    QString host;
    QString app;
    if (!QLockFile(path).getLockInfo(&pid, &host, &app) || pid <= 0)
        return 0;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)
        return pid;
    return 0;
}

bool PidFile::heldByCommand(const QString &path)
{
    const qint64 pid = runningPid(path);
    if (pid <= 0)
        return false;
    QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
    if (!cmdline.open(QIODevice::ReadOnly))
        return false;
    // The command word may follow global options (`chat2sbx --json serve`): any word of the line.
    const QList<QByteArray> argv = cmdline.read(4096).split('\0');
    for (qsizetype i = 1; i < argv.size(); ++i)
        if (argv.at(i) == "serve" || argv.at(i) == "tray")
            return false;
    return argv.size() > 1;
}

bool PidFile::acquire(QString &error)
{
    if (m_lock.isLocked())
        return true;
    if (m_lock.tryLock(0)) {
        QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return true;
    }
    if (m_lock.error() == QLockFile::LockFailedError) {
        qint64 other = 0;
        QString host;
        QString app;
        m_lock.getLockInfo(&other, &host, &app);
        error = QStringLiteral("another chat2sbx server is already running (PID %1, %2)").arg(other).arg(m_path);
    } else {
        error = QStringLiteral("cannot write %1: %2").arg(m_path,
                                   m_lock.error() == QLockFile::PermissionError ? QStringLiteral("Permission denied")
                                                                                : QStringLiteral("unknown error"));
    }
    return false;
}

void PidFile::release()
{
    m_lock.unlock();
}

} // namespace chat2sbx
