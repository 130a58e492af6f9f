#include "tools/SandboxToolArgs.h"

#include <QFile>
#include <QRegularExpression>
#include <QStringList>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

constexpr qint64 kKiB = 1024;
constexpr qint64 kMinMemory = 512 * kKiB * kKiB;   // sbx-contract.md: minimum 512m (v0.43)
constexpr qint64 kMaxMemory = 32 * kKiB * kKiB * kKiB;   // and maximum 32 GiB
constexpr qint64 kMaxAgentsBytes = 256 * 1024;

} // namespace

bool parseMemoryArgument(const QString &value, QString &normalized, QString &error)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]{1,12})([kmgKMG])$"));
    const QString shown = value.size() > 40 ? value.left(40) + QStringLiteral("…") : value;
    const QString rule = QStringLiteral("use a size like 512m or 4g (a whole number with k, m or g, from 512m to 32g)");
    const QRegularExpressionMatch m = re.match(value);
    if (!m.hasMatch()) {
        error = QStringLiteral("invalid memory \"%1\": %2").arg(shown, rule);
        return false;
    }
    const qint64 n = m.captured(1).toLongLong();
    const QChar unit = m.captured(2).at(0).toLower();
    const qint64 factor = unit == QLatin1Char('k') ? kKiB : unit == QLatin1Char('m') ? kKiB * kKiB : kKiB * kKiB * kKiB;
    const qint64 bytes = n * factor;   // n < 10^12 and factor <= 2^30: no overflow
    if (bytes < kMinMemory || bytes > kMaxMemory) {
        error = QStringLiteral("invalid memory \"%1\": out of range; %2").arg(shown, rule);
        return false;
    }
    normalized = QString::number(n) + unit;
    return true;
}

bool readGlobalAgentsFile(const QString &path, std::optional<QString> &text, QString &error)
{
    text.reset();
    const QByteArray native = QFile::encodeName(path);
    struct stat st {};
    if (::lstat(native.constData(), &st) != 0) {
        if (errno == ENOENT)
            return true;
        error = QStringLiteral("the global AGENTS.md cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    if (S_ISLNK(st.st_mode)) {
        error = QStringLiteral("the global AGENTS.md is a symbolic link; only a regular file is read (replace the link with the file)");
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        error = QStringLiteral("the global AGENTS.md is not a regular file; only a regular file is read");
        return false;
    }
    // O_NOFOLLOW + fstat: the file opened is the regular file just checked, not a swapped-in link.
    const int fd = ::open(native.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        error = QStringLiteral("the global AGENTS.md cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    struct stat fst {};
    if (::fstat(fd, &fst) != 0 || !S_ISREG(fst.st_mode)) {
        ::close(fd);
        error = QStringLiteral("the global AGENTS.md is not a regular file; only a regular file is read");
        return false;
    }
    if (fst.st_size > kMaxAgentsBytes) {
        ::close(fd);
        error = QStringLiteral("the global AGENTS.md is larger than %1 KiB; shorten it").arg(kMaxAgentsBytes / 1024);
        return false;
    }
    QByteArray data;
    char buf[16384];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            const int e = errno;
            ::close(fd);
            error = QStringLiteral("the global AGENTS.md cannot be read: %1").arg(QString::fromLocal8Bit(std::strerror(e)));
            return false;
        }
        if (n == 0)
            break;
        data.append(buf, static_cast<qsizetype>(n));
        if (data.size() > kMaxAgentsBytes) {
            ::close(fd);
            error = QStringLiteral("the global AGENTS.md is larger than %1 KiB; shorten it").arg(kMaxAgentsBytes / 1024);
            return false;
        }
    }
    ::close(fd);
    text = QString::fromUtf8(data);
    return true;
}

bool onlyKnownArguments(const QJsonObject &args, const QStringList &allowed, QString &error)
{
    for (auto it = args.begin(); it != args.end(); ++it) {
        if (!allowed.contains(it.key())) {
            const QString key = it.key().size() > 64 ? it.key().left(64) + QStringLiteral("…") : it.key();
            error = allowed.isEmpty() ? QStringLiteral("unexpected argument \"%1\": this tool takes no arguments").arg(key)
                                      : QStringLiteral("unexpected argument \"%1\" (allowed: %2)").arg(key, allowed.join(QStringLiteral(", ")));
            return false;
        }
    }
    return true;
}

} // namespace chat2sbx
