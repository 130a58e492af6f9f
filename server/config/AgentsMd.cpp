#include "config/AgentsMd.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

constexpr qint64 kMaxAgentsBytes = 256 * 1024;

} // namespace

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

} // namespace chat2sbx
