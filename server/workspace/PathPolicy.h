#pragma once

#include "state/Workspace.h"
#include "workspace/MountTable.h"

#include <QString>
#include <QStringList>

namespace chat2sbx {

// Which host directory a check found: its canonical path and the file identity it had then.
struct HostDirectory {
    QString canonicalPath;
    qint64 device = 0;
    qint64 inode = 0;
};

// The outcome of a host path check. On refusal `reason` is one readable sentence that never names
// chat2sbx's own data directory.
struct PathCheck {
    bool ok = false;
    QString reason;
    HostDirectory directory;

    static PathCheck refused(const QString &why) { return {false, why, {}}; }
};

// Decides which host directories may become host workspaces (clone or direct). Pure: reads the
// file system, writes nothing, keeps no state between calls.
//
// A path is accepted only when it is
//   - absolute, valid UTF-8 without control characters, at most 4096 bytes, no component over 255
//     bytes, and without "." or ".." components;
//   - an existing directory whose canonical path (realpath) lies strictly below a canonical allowed
//     root (the root itself is refused; symlinks that lead out of every root are refused);
//   - free of credential components anywhere in the requested or canonical path (.ssh, .gnupg,
//     .aws, .azure, .kube, .docker, .config/gcloud, .password-store, .netrc, .pgpass,
//     .git-credentials, ...), and not a home-like folder that directly contains one of them;
//   - neither inside nor containing one of the protected folders (chat2sbx's data directory);
//   - free of mount points between the allowed root and the folder and inside it, and of directories
//     that are a credential folder of the home directory or a protected folder under another path
//     (HostExposure.h: a bind mount of ~/.ssh below an allowed root);
//   - for clone mode, a git repository (.git directory or file at its top).
// Host access is disabled altogether while no allowed root is configured.
class PathPolicy {
public:
    // `protectedPaths`: folders a host workspace must neither be inside of nor contain.
    explicit PathPolicy(const QStringList &allowedRoots, const QStringList &protectedPaths = {});

    bool hostAccessEnabled() const { return !m_roots.isEmpty(); }

    PathCheck check(const QString &requestedPath, WorkspaceMode mode) const;

    // The check again at the moment of use (approval, sandbox creation): the path must still pass
    // and still be the same directory (device and inode) it was when first checked, so a swap of
    // the directory or of a parent for a symlink in between is detected.
    PathCheck revalidate(const HostDirectory &recorded, WorkspaceMode mode) const;

    // The innermost allowed root that `canonical` lies strictly below; empty when none.
    QString containingRoot(const QString &canonical) const;

    // Replaces this process's mount table and home directory (tests).
    void useMountTable(const QList<MountEntry> &mounts) { m_mounts = mounts; }
    void useHome(const QString &home) { m_home = home; }

    // Names treated as credential stores when they appear as a path component.
    static const QStringList &credentialNames();

    static constexpr int kMaxPathBytes = 4096;
    static constexpr int kMaxComponentBytes = 255;

private:
    QStringList m_roots;        // as configured (cleaned)
    QStringList m_protected;    // canonical when they exist, cleaned otherwise
    std::optional<QList<MountEntry>> m_mounts;   // unset: read /proc/self/mountinfo per check
    QString m_home;
};

} // namespace chat2sbx
