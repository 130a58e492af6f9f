#include "runtime/PidFile.h"

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>

#include <cerrno>
#include <csignal>

namespace chat2sbx {

PidFile::~PidFile()
{
    release();
}

qint64 PidFile::runningPid(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    bool ok = false;
    const qint64 pid = QString::fromLatin1(f.readAll()).trimmed().toLongLong(&ok);
    if (!ok || pid <= 0)
        return 0;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM)
        return pid;
    return 0;
}

bool PidFile::acquire(QString &error)
{
    const qint64 other = runningPid(m_path);
    if (other > 0 && other != QCoreApplication::applicationPid()) {
        error = QStringLiteral("another chat2sbx server is already running (PID %1, %2)").arg(other).arg(m_path);
        return false;
    }
    QSaveFile f(m_path);
    if (!f.open(QIODevice::WriteOnly)) {
        error = QStringLiteral("cannot write %1: %2").arg(m_path, f.errorString());
        return false;
    }
    f.write(QByteArray::number(QCoreApplication::applicationPid()) + '\n');
    if (!f.commit()) {
        error = QStringLiteral("cannot write %1: %2").arg(m_path, f.errorString());
        return false;
    }
    QFile::setPermissions(m_path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    m_held = true;
    return true;
}

void PidFile::release()
{
    if (!m_held)
        return;
    if (runningPid(m_path) == QCoreApplication::applicationPid())
        QFile::remove(m_path);
    m_held = false;
}

} // namespace chat2sbx
