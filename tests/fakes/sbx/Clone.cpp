#include "Clone.h"

#include "FsOps.h"

#include <QFileInfo>

namespace fakesbx {

QString cloneRefusal(const QString &root)
{
    const QFileInfo git(root + QStringLiteral("/.git"));
    if (git.isFile())
        return QStringLiteral("ERROR: %1 is a linked git worktree (.git is a file); clone mode needs the main "
                              "checkout of the repository").arg(root);
    if (!git.isDir())
        return QStringLiteral("ERROR: %1 is not the top of a git repository (no .git directory); clone mode "
                              "needs one").arg(root);
    return {};
}

bool cloneWorkspace(const QString &name, const QString &root, const QString &cloneDir, QString *error)
{
    QString err;
    int rc = runAndWait({QStringLiteral("git"), QStringLiteral("clone"), QStringLiteral("--quiet"),
                         QStringLiteral("--no-hardlinks"), root, cloneDir},
                        &err);
    if (rc != 0) {
        *error = QStringLiteral("ERROR: git clone of %1 failed (exit %2): %3").arg(root).arg(rc).arg(err.trimmed());
        return false;
    }
    const QString remote = QStringLiteral("sandbox-") + name;
    removeHostRemote(name, root);
    rc = runAndWait({QStringLiteral("git"), QStringLiteral("-C"), root, QStringLiteral("remote"),
                     QStringLiteral("add"), remote, cloneDir},
                    &err);
    if (rc == 0) {
        rc = runAndWait({QStringLiteral("git"), QStringLiteral("-C"), root, QStringLiteral("config"),
                         QStringLiteral("remote.%1.fetch").arg(remote),
                         QStringLiteral("+refs/heads/*:refs/sandboxes/%1/*").arg(name)},
                        &err);
    }
    if (rc != 0) {
        *error = QStringLiteral("ERROR: cannot add the remote %1 to %2: %3").arg(remote, root, err.trimmed());
        return false;
    }
    return true;
}

void removeHostRemote(const QString &name, const QString &root)
{
    runAndWait({QStringLiteral("git"), QStringLiteral("-C"), root, QStringLiteral("remote"),
                QStringLiteral("remove"), QStringLiteral("sandbox-") + name});
}

} // namespace fakesbx
