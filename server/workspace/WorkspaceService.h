#pragma once

#include "config/Config.h"
#include "state/WorkspaceRepository.h"
#include "workspace/PathPolicy.h"
#include "state/Workspace.h"

#include <QObject>
#include <memory>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;
class FolderSwapWatch;

// One row of a workspace listing: the workspace plus what the sandboxes table says about it.
struct WorkspaceOverview {
    Workspace workspace;
    QString activeSandboxId;      // newest sandbox in creating/running/destroying; empty if none
    qint64 retentionDeadline = 0; // managed, not trashed, no active sandbox: when the sweep trashes it; else 0
};

// Workspaces: managed folders under the workspace root, and approved host directories (clone or
// direct). Host directories only enter through registerHost / registerHostDirectory, which the
// local user's actions call (CLI `workspace add`, an approval decision), never an MCP tool.
class WorkspaceService : public QObject {
    Q_OBJECT
public:
    WorkspaceService(const Config &config, Database &db, Clock &clock, QObject *parent = nullptr);

    // Creates <workspace root>/<ws_id> (0700) and records it before returning.
    // `makeFolder` false: a cloud sandbox's scratch, whose files live in its VM in the cloud; the
    // record has its path as every managed workspace, but no folder of this computer is made.
    std::optional<Workspace> createManaged(QString &error, bool makeFolder = true);
    std::optional<Workspace> find(const QString &id) const;
    QList<Workspace> list() const;
    // Every live workspace with its active sandbox and retention deadline.
    QList<WorkspaceOverview> overview() const;
    void touch(const QString &id);

    // The host path policy for the current configuration (allowed roots; chat2sbx's own folders
    // protected). Built per call so roots created after start-up are seen canonically.
    PathPolicy policy() const;
    // The folders agents may ask for now: the configured allowedHostRoots and those added since.
    QStringList allowedHostRoots() const;
    // Adds an existing folder to the allowed roots (the tray's "Add a folder"): written to
    // config.json's allowedHostRoots first, then allowed at once. `canonical` is what was added.
    // Refuses "/", chat2sbx's own folders and what lies in them, with a readable `error`.
    bool addAllowedHostRoot(const QString &dir, QString &canonical, QString &error);

    // Registers `path` as a host workspace after checking it under policy(). Repeat-safe: the
    // same canonical path and mode returns the live workspace already registered for it.
    std::optional<Workspace> registerHost(const QString &path, WorkspaceMode mode, QString &error);
    // The same for a directory a policy check has just accepted (e.g. PathPolicy::revalidate).
    std::optional<Workspace> registerHostDirectory(const HostDirectory &dir, WorkspaceMode mode, QString &error);

    // Call right before a sandbox uses the workspace (sandbox_create): refuses a trashed workspace;
    // recreates a missing managed folder (0700); re-checks a host directory under the policy and
    // refuses it when it is no longer the directory that was registered (device/inode changed).
    bool checkBeforeUse(const Workspace &workspace, QString &error) const;
    // For a host workspace, armed before checkBeforeUse: notices the folder (or one above it) being
    // renamed or swapped while sbx mounts it (`sbx create`, or a stopped VM starting again). Null
    // for a managed workspace.
    std::shared_ptr<FolderSwapWatch> watchForMount(const Workspace &workspace) const;
    // When `sbx create` returned: the folder the sandbox got must be the approved one, unchanged
    // since the check before create. False with a readable reason otherwise.
    bool checkAfterCreate(const Workspace &workspace, FolderSwapWatch *watch, QString &error) const;

    // Managed workspaces without a sandbox are kept this long after their last use.
    qint64 retentionMs() const;

    // The live host workspace registered for this canonical path and mode, if any.
    std::optional<Workspace> findHost(const QString &canonicalPath, WorkspaceMode mode) const;
    // A managed workspace made for a sandbox that was never made (a fork refused at the limit): its
    // record goes when no sandbox names it. Returns its folder, for the caller to remove; empty when
    // it was kept (a sandbox names it) or on error.
    QString forgetUnusedManaged(const QString &id, QString &error);
    // Records that a managed workspace's folder now lives at `trashPath` (the retention sweep).
    bool recordTrashed(const QString &id, const QString &trashPath, qint64 nowMs, QString &error);
    // Records that the user withdrew a host workspace's approval (a new request is needed).
    bool recordRevoked(const QString &id, qint64 nowMs, QString &error);
    const Config &config() const { return m_config; }
    Clock &clock() const { return m_clock; }

    // Tells listeners the workspaces table changed (used when another process, e.g. the CLI, wrote it).
    void notifyChanged() { emit workspacesChanged(); }

signals:
    void workspacesChanged();

private:
    // Outlive this: Services (runtime/Services.h) owns them, declared before this. Config: its Services' (a server's or a CLI command's).
    const Config &m_config;
    Database &m_db;
    Clock &m_clock;
    WorkspaceRepository m_repo;
    QStringList m_addedRoots;   // allowed since start (also in config.json for the next start)
};

} // namespace chat2sbx
