#pragma once

#include <QCryptographicHash>
#include <QFile>
#include <QString>

namespace chat2sbx {

// The host side of export_file: the file lands in one folder the user chose (exportDir), under a
// name made from the sandbox path's last part only (no path from the VM decides where it goes),
// written to a hidden staged file first and given its name only when complete, never over another
// file ("report (2).pdf"). A server killed half-way leaves at most the hidden staged file.
class HostExportFile {
public:
    ~HostExportFile();

    // The last part of `sandboxPath`, one safe file name: no separators or control characters, no
    // leading dots, at most 200 bytes; "export" when nothing is left; `.tar.gz` added for a folder.
    static QString safeName(const QString &sandboxPath, bool folder);
    // "name (n).ext" for the n-th try (n >= 2), keeping double extensions like .tar.gz whole.
    static QString numberedName(const QString &name, int n);
    // Removes the staged files in `dir` nobody wrote to for `minutes` (a server killed mid-copy);
    // returns how many. Named files are never touched.
    static int removeStale(const QString &dir, int minutes, qint64 nowMs);

    bool open(const QString &dir, const QString &name, QString &error);
    bool write(const QByteArray &part, QString &error);
    // Flushes to disk and gives the file its name (the first free of name, name (2), ...); the host
    // path in `finalPath`.
    bool commit(QString &finalPath, QString &error);
    void discard();
    qint64 written() const { return m_written; }
    QString sha256() const { return QString::fromLatin1(m_hash.result().toHex()); }

private:
    QString m_dir;
    QString m_name;
    QFile m_staged;
    qint64 m_written = 0;
    QCryptographicHash m_hash{QCryptographicHash::Sha256};
};

} // namespace chat2sbx
