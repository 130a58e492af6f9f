#include "workspace/FolderSwapWatch.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <unistd.h>

#ifdef __linux__
#include <sys/inotify.h>
#endif

namespace chat2sbx {

FolderSwapWatch::~FolderSwapWatch()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

bool FolderSwapWatch::arm(const QString &root, const QString &canonical, QString &error)
{
#ifdef __linux__
    m_fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (m_fd < 0)
        return true;   // no inotify instance left: the identity re-check still runs
    const QStringList steps = canonical.mid(root.size()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString path = root;
    for (int i = 0; i <= steps.size(); ++i) {
        const bool last = i == steps.size();
        // On the way: entries named like the next step appearing, going or moving. The workspace
        // itself: only its own move or removal (its contents change all the time).
        const uint32_t mask = IN_ONLYDIR | IN_DONT_FOLLOW | IN_MOVE_SELF | IN_DELETE_SELF | IN_UNMOUNT
                              | (last ? 0u : uint32_t(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO));
        const int wd = ::inotify_add_watch(m_fd, QFile::encodeName(path).constData(), mask);
        if (wd < 0) {
            const int err = errno;
            if (err == ENOSPC) {   // the per-user watch limit: fall back to the re-check alone
                ::close(m_fd);
                m_fd = -1;
                m_nextName.clear();
                m_watchedPath.clear();
                return true;
            }
            error = QStringLiteral("%1 cannot be watched while the sandbox is created: %2")
                        .arg(path, QString::fromLocal8Bit(std::strerror(err)));
            m_changed = true;
            m_what = error;
            return false;
        }
        m_nextName.insert(wd, last ? QString() : steps.at(i));
        m_watchedPath.insert(wd, path);
        if (!last)
            path += QLatin1Char('/') + steps.at(i);
    }
    return true;
#else
    Q_UNUSED(root);
    Q_UNUSED(canonical);
    Q_UNUSED(error);
    return true;
#endif
}

bool FolderSwapWatch::changed(QString &what)
{
#ifdef __linux__
    alignas(struct inotify_event) char buffer[16 * 1024];
    while (m_fd >= 0 && !m_changed) {
        const ssize_t n = ::read(m_fd, buffer, sizeof buffer);
        if (n <= 0)
            break;   // EAGAIN: nothing more queued
        for (ssize_t off = 0; off + static_cast<ssize_t>(sizeof(struct inotify_event)) <= n && !m_changed;) {
            const auto *e = reinterpret_cast<const struct inotify_event *>(buffer + off);
            off += static_cast<ssize_t>(sizeof(struct inotify_event) + e->len);
            if (e->mask & IN_Q_OVERFLOW) {
                m_changed = true;
                m_what = QStringLiteral("too many changes happened in its parent folders to be sure it stayed the same");
                continue;
            }
            const auto next = m_nextName.constFind(e->wd);
            if (next == m_nextName.constEnd())
                continue;
            const QString where = m_watchedPath.value(e->wd);
            if (e->mask & (IN_MOVE_SELF | IN_DELETE_SELF | IN_UNMOUNT | IN_IGNORED)) {
                m_changed = true;
                m_what = QStringLiteral("%1 was moved, removed or unmounted").arg(where);
            } else if (e->len > 0 && !next->isEmpty() && QFile::decodeName(e->name) == *next) {
                m_changed = true;
                m_what = QStringLiteral("%1/%2 was renamed, removed or replaced").arg(where, *next);
            }
        }
    }
#endif
    what = m_what;
    return m_changed;
}

} // namespace chat2sbx
