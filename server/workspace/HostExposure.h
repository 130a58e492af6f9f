#pragma once

#include "workspace/MountTable.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace chat2sbx {

// A folder that must never become reachable inside a sandbox, known by its identity (device and
// inode) so that it is recognised under any path (a bind mount of ~/.ssh below an allowed root).
struct GuardedFolder {
    QString label;   // as shown in a refusal: "~/.ssh", "chat2sbx's own data directory"
    quint64 device = 0;
    quint64 inode = 0;
};

// The credential folders of `home` that exist (`credentialNames`: ".ssh", ".config/gcloud", ...) and
// the `dataFolders` of chat2sbx itself.
QList<GuardedFolder> guardedFolders(const QString &home, const QStringList &credentialNames, const QStringList &dataFolders);

struct ExposureLimits {
    int maxDepth = 3;            // levels of sub-directories inspected below the folder
    int maxDirectories = 1000;   // directories read at most (the walk runs on the event loop)
};

// Why the host folder `canonical` (requested as `requested`, strictly below the allowed root
// `root`) would show a sandbox more than the folder itself, or "" when it would not:
//   - a mount point strictly below `root` on the way to the folder, at the folder or inside it
//     (from `mounts`, the mount table; absent where the system has none);
//   - a directory on another device than its parent (a mount the table does not show);
//   - a directory that is one of the `guarded` folders reached through another path.
// Below the folder only `limits` are inspected; the mount table is always checked whole.
QString exposureRefusal(const QString &requested, const QString &canonical, const QString &root,
                        const std::optional<QList<MountEntry>> &mounts, const QList<GuardedFolder> &guarded,
                        const ExposureLimits &limits = {});

} // namespace chat2sbx
