#pragma once

#include <QString>

namespace chat2sbx {

// <state dir>/chat2sbx.pid: written once the endpoint listens, removed on clean shutdown.
// A stale file (process gone) is recognised and replaced.
class PidFile {
public:
    explicit PidFile(const QString &path) : m_path(path) {}
    ~PidFile();

    // Fails when another live chat2sbx holds the file.
    bool acquire(QString &error);
    void release();

    // The PID recorded in `path` if that process is alive, else 0.
    static qint64 runningPid(const QString &path);

private:
    QString m_path;
    bool m_held = false;
};

} // namespace chat2sbx
