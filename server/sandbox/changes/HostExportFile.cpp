#include "sandbox/changes/HostExportFile.h"

#include "core/Ids.h"

#include <QDateTime>
#include <QDir>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

constexpr int kMaxNameBytes = 200;
constexpr int kMaxNumberedTries = 1000;

// "report.tar.gz" -> {"report", ".tar.gz"}; "a.pdf" -> {"a", ".pdf"}; "Makefile" -> {"Makefile", ""}.
std::pair<QString, QString> splitExtension(const QString &name)
{
    for (const char *twoPart : {".tar.gz", ".tar.bz2", ".tar.xz", ".tar.zst"})
        if (name.endsWith(QLatin1String(twoPart)) && name.size() > static_cast<qsizetype>(std::strlen(twoPart)))
            return {name.left(name.size() - static_cast<qsizetype>(std::strlen(twoPart))), QLatin1String(twoPart)};
    const qsizetype dot = name.lastIndexOf(QLatin1Char('.'));
    if (dot <= 0)
        return {name, QString()};
    return {name.left(dot), name.mid(dot)};
}

} // namespace

HostExportFile::~HostExportFile()
{
    discard();
}

QString HostExportFile::safeName(const QString &sandboxPath, bool folder)
{
    QString path = sandboxPath;
    while (path.endsWith(QLatin1Char('/')))
        path.chop(1);
    QString base = path.section(QLatin1Char('/'), -1);
    QString clean;
    for (const QChar c : base)
        if (c.isPrint() && c != QLatin1Char('\\') && c != QLatin1Char('/'))
            clean += c;
    while (clean.startsWith(QLatin1Char('.')) || clean.startsWith(QLatin1Char(' ')))
        clean.remove(0, 1);
    clean = clean.trimmed();
    if (clean.isEmpty())
        clean = QStringLiteral("export");
    const QString suffix = folder ? QStringLiteral(".tar.gz") : QString();
    while (clean.toUtf8().size() + suffix.toUtf8().size() > kMaxNameBytes)
        clean.chop(1);
    return clean + suffix;
}

QString HostExportFile::numberedName(const QString &name, int n)
{
    const auto [stem, ext] = splitExtension(name);
    return QStringLiteral("%1 (%2)%3").arg(stem).arg(n).arg(ext);
}

bool HostExportFile::open(const QString &dir, const QString &name, QString &error)
{
    if (!QDir().mkpath(dir)) {
        error = QStringLiteral("cannot create the export folder %1").arg(dir);
        return false;
    }
    m_dir = dir;
    m_name = name;
    const QString token = randomHex(8);
    m_staged.setFileName(dir + QStringLiteral("/.") + name + QStringLiteral(".chat2sbx-part-") + token);
    if (!m_staged.open(QIODevice::WriteOnly | QIODevice::NewOnly)) {
        error = QStringLiteral("cannot write in %1: %2").arg(dir, m_staged.errorString());
        return false;
    }
    m_staged.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return true;
}

bool HostExportFile::write(const QByteArray &part, QString &error)
{
    if (m_staged.write(part) != part.size()) {
        error = QStringLiteral("cannot write in %1: %2").arg(m_dir, m_staged.errorString());
        return false;
    }
    m_hash.addData(part);
    m_written += part.size();
    return true;
}

bool HostExportFile::commit(QString &finalPath, QString &error)
{
    if (!m_staged.flush() || ::fsync(m_staged.handle()) != 0) {
        error = QStringLiteral("cannot write in %1: %2").arg(m_dir, m_staged.errorString());
        return false;
    }
    m_staged.close();
    m_staged.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther);
    const QByteArray staged = QFile::encodeName(m_staged.fileName());
    for (int n = 1; n <= kMaxNumberedTries; ++n) {
        const QString candidate = m_dir + QLatin1Char('/') + (n == 1 ? m_name : numberedName(m_name, n));
        // link() never replaces an existing file: the first free name wins, atomically; where the
        // file system has no hard links, a rename that refuses to replace does the same.
        const QByteArray target = QFile::encodeName(candidate);
        bool named = ::link(staged.constData(), target.constData()) == 0;
        if (named) {
            ::unlink(staged.constData());
        } else if (errno == EPERM || errno == ENOTSUP || errno == EOPNOTSUPP) {
            named = ::renameat2(AT_FDCWD, staged.constData(), AT_FDCWD, target.constData(), RENAME_NOREPLACE) == 0;
        }
        if (named) {
            m_staged.setFileName(QString());
            finalPath = candidate;
            return true;
        }
        if (errno != EEXIST) {
            error = QStringLiteral("cannot name the file in %1: %2").arg(m_dir, QString::fromLocal8Bit(std::strerror(errno)));
            return false;
        }
    }
    error = QStringLiteral("%1 and %2 numbered copies of it exist in %3 already").arg(m_name).arg(kMaxNumberedTries).arg(m_dir);
    return false;
}

int HostExportFile::removeStale(const QString &dir, int minutes, qint64 nowMs)
{
    int removed = 0;
    const QDateTime before = QDateTime::fromMSecsSinceEpoch(nowMs - 60000LL * minutes, Qt::UTC);
    const QFileInfoList staged = QDir(dir).entryInfoList({QStringLiteral(".*.chat2sbx-part-*")}, QDir::Files | QDir::Hidden);
    for (const QFileInfo &f : staged)
        if (f.lastModified().toUTC() < before && QFile::remove(f.absoluteFilePath()))
            ++removed;
    return removed;
}

void HostExportFile::discard()
{
    if (m_staged.fileName().isEmpty())
        return;
    m_staged.close();
    m_staged.remove();
    m_staged.setFileName(QString());
}

} // namespace chat2sbx
