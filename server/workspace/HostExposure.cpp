#include "workspace/HostExposure.h"

#include <QFile>

#include <deque>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace chat2sbx {
namespace {

bool isBelowOrAt(const QString &path, const QString &dir)
{
    return path == dir || path.startsWith(dir.endsWith(QLatin1Char('/')) ? dir : dir + QLatin1Char('/'));
}

bool isStrictlyBelow(const QString &path, const QString &dir)
{
    return path != dir && isBelowOrAt(path, dir);
}

QString mountRefusal(const QString &requested, const QString &mountPoint)
{
    return QStringLiteral("%1 is refused: %2 is a mount point, and a mount can bring folders from outside the allowed "
                          "roots (for example a bind mount of ~/.ssh) into the sandbox; choose a folder without mount "
                          "points in it, or make the mounted folder an allowed root of its own")
        .arg(requested, mountPoint);
}

const GuardedFolder *guardedMatch(const QList<GuardedFolder> &guarded, const struct stat &st)
{
    for (const GuardedFolder &g : guarded) {
        if (g.device == static_cast<quint64>(st.st_dev) && g.inode == static_cast<quint64>(st.st_ino))
            return &g;
    }
    return nullptr;
}

QString guardedRefusal(const QString &requested, const QString &where, const GuardedFolder &g)
{
    return QStringLiteral("%1 is refused: %2 is %3 reached through another path (a bind mount); a sandbox must never "
                          "see it")
        .arg(requested, where, g.label);
}

// Checks one directory found on the way or in the walk: a guarded folder, or another device than its parent.
QString inspect(const QString &requested, const QString &path, const struct stat &st, quint64 parentDevice,
                const QList<GuardedFolder> &guarded)
{
    if (const GuardedFolder *g = guardedMatch(guarded, st))
        return guardedRefusal(requested, path, *g);
    if (static_cast<quint64>(st.st_dev) != parentDevice)
        return mountRefusal(requested, path);
    return {};
}

struct DirHandle {
    DIR *dir = nullptr;
    ~DirHandle()
    {
        if (dir)
            ::closedir(dir);
    }
};

} // namespace

QList<GuardedFolder> guardedFolders(const QString &home, const QStringList &credentialNames, const QStringList &dataFolders)
{
    QList<GuardedFolder> out;
    auto add = [&out](const QString &path, const QString &label) {
        struct stat st {};
        if (::stat(QFile::encodeName(path).constData(), &st) == 0 && S_ISDIR(st.st_mode))
            out.append({label, static_cast<quint64>(st.st_dev), static_cast<quint64>(st.st_ino)});
    };
    if (!home.isEmpty()) {
        for (const QString &name : credentialNames)
            add(home + QLatin1Char('/') + name, QStringLiteral("~/") + name);
    }
    for (const QString &folder : dataFolders)
        add(folder, QStringLiteral("chat2sbx's own data directory"));
    return out;
}

QString exposureRefusal(const QString &requested, const QString &canonical, const QString &root,
                        const std::optional<QList<MountEntry>> &mounts, const QList<GuardedFolder> &guarded,
                        const ExposureLimits &limits)
{
    if (mounts) {
        for (const MountEntry &m : *mounts) {
            if (isStrictlyBelow(m.mountPoint, root) && (isBelowOrAt(m.mountPoint, canonical) || isBelowOrAt(canonical, m.mountPoint)))
                return mountRefusal(requested, m.mountPoint);
        }
    }

    // The way from the root down to the folder (no symbolic links: `canonical` is a realpath).
    struct stat st {};
    if (::stat(QFile::encodeName(root).constData(), &st) != 0)
        return QStringLiteral("%1 cannot be checked: its allowed root cannot be read").arg(requested);
    quint64 parentDevice = static_cast<quint64>(st.st_dev);
    const QStringList steps = canonical.mid(root.size()).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    QString path = root;
    for (const QString &step : steps) {
        path += QLatin1Char('/') + step;
        if (::lstat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISDIR(st.st_mode))
            return QStringLiteral("%1 changed while it was being checked").arg(requested);
        const QString why = inspect(requested, path, st, parentDevice, guarded);
        if (!why.isEmpty())
            return why;
        parentDevice = static_cast<quint64>(st.st_dev);
    }

    // Below the folder, breadth first, without following symbolic links (inside the VM a link is
    // resolved in the VM's own file system, not on the host).
    struct Item {
        QByteArray path;
        quint64 device;
        int depth;
    };
    std::deque<Item> queue{{QFile::encodeName(canonical), parentDevice, 0}};
    int read = 0;
    while (!queue.empty() && read < limits.maxDirectories) {
        const Item item = queue.front();
        queue.pop_front();
        const int fd = ::open(item.path.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            continue;   // unreadable: the sandbox cannot read it either
        DirHandle dir;
        dir.dir = ::fdopendir(fd);
        if (!dir.dir) {
            ::close(fd);
            continue;
        }
        ++read;
        while (const dirent *e = ::readdir(dir.dir)) {
            const QByteArray name(e->d_name);
            if (name == "." || name == ".." || (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
                continue;
            struct stat child {};
            if (::fstatat(::dirfd(dir.dir), e->d_name, &child, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(child.st_mode))
                continue;
            const QByteArray childPath = item.path + '/' + name;
            const QString why = inspect(requested, QFile::decodeName(childPath), child, item.device, guarded);
            if (!why.isEmpty())
                return why;
            if (item.depth + 1 < limits.maxDepth)
                queue.push_back({childPath, static_cast<quint64>(child.st_dev), item.depth + 1});
        }
    }
    return {};
}

} // namespace chat2sbx
