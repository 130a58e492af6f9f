#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace chat2sbx {

// Notices when a host folder, or a folder on its way down from the allowed root, is renamed,
// removed or replaced between arm() and changed() — e.g. swapped for a symbolic link and back while
// `sbx create` mounts it, which a re-check of the path afterwards cannot see. Linux: inotify watches
// on the root and every folder down to the workspace, installed top-down (the root, which no
// sandbox can rename, first). Where inotify is unavailable, available() is false and only the
// identity re-check (PathPolicy::revalidate) remains.
class FolderSwapWatch {
public:
    FolderSwapWatch() = default;
    ~FolderSwapWatch();
    FolderSwapWatch(const FolderSwapWatch &) = delete;
    FolderSwapWatch &operator=(const FolderSwapWatch &) = delete;

    // `canonical` must lie strictly below `root`, both canonical paths. False (with `error`) when a
    // folder on the way cannot be watched (it is not a directory any more): changed() then says so.
    bool arm(const QString &root, const QString &canonical, QString &error);
    bool available() const { return m_fd >= 0; }

    // Reads what happened since arm(), without blocking. True, with `what`, when a folder on the way
    // was renamed, removed, created anew or replaced (or events were lost).
    bool changed(QString &what);

private:
    int m_fd = -1;
    QHash<int, QString> m_nextName;   // watch descriptor -> the name of the next folder on the way ("" for the workspace itself)
    QHash<int, QString> m_watchedPath;
    bool m_changed = false;
    QString m_what;
};

} // namespace chat2sbx
