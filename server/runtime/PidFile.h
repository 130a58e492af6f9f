#pragma once

#include <QLockFile>
#include <QString>

namespace chat2sbx {

// <state dir>/chat2sbx.pid: taken once the endpoint listens, removed on clean shutdown. A QLockFile
// (the PID on its first line): creating it is the check, so two servers starting at once cannot
// both win. A file left by a process that is gone (or whose PID now runs another program) is
// stale and taken over.
class PidFile {
public:
    explicit PidFile(const QString &path);
    ~PidFile();

    // Fails when another live chat2sbx holds the file.
    bool acquire(QString &error);
    void release();

    // The PID recorded in `path` if that process is alive, else 0.
    static qint64 runningPid(const QString &path);
    // Whether the live holder of `path` is a CLI command acting while no server ran (it holds the
    // lock for as long as it acts), not a server (`serve` or `tray`).
    static bool heldByCommand(const QString &path);

private:
    QString m_path;
    QLockFile m_lock;
};

} // namespace chat2sbx
