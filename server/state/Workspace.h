#pragma once

#include <QString>

namespace chat2sbx {

enum class WorkspaceMode { Managed, Clone, Direct };

QString workspaceModeName(WorkspaceMode mode);
bool parseWorkspaceMode(const QString &text, WorkspaceMode &out);

// A folder a sandbox works on. Managed: <workspace root>/<id>, owned by chat2sbx. Clone: an approved
// host repository used as the read-only source of a private clone. Direct: an approved host
// directory mounted read-write.
struct Workspace {
    QString id;              // ws_ + random
    WorkspaceMode mode = WorkspaceMode::Managed;
    QString hostPath;        // absolute host path: the managed folder, or the approved host directory
    QString displayName;
    qint64 createdAt = 0;
    qint64 lastUsedAt = 0;
    qint64 trashedAt = 0;    // 0: not in the trash
    qint64 hostDevice = 0;   // host workspaces: identity of the directory when it was registered
    qint64 hostInode = 0;

    bool isManaged() const { return mode == WorkspaceMode::Managed; }
    // The path model-facing results may show for this workspace inside the sandbox. Managed workspaces
    // live under the host data directory, which results never reveal, so they are reached through the
    // alias ~/workspace that the in-sandbox helper creates; host workspaces appear at their own path.
    QString pathInSandbox() const;
};

} // namespace chat2sbx
