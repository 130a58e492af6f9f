#pragma once

#include "sandbox/changes/WorkspaceChanges.h"
#include "sandbox/channel/SandboxResolver.h"
#include "sandbox/lifecycle/DestroyGuard.h"
#include "state/Workspace.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QString>

#include <functional>

namespace chat2sbx {

class ChannelPool;
class HostGit;
class SandboxService;

// The agent's work in a sandbox's git workspace: review it (changes) and bring it home (exportWork).
// Export is the one mechanism for the tool, the CLI, the tray and destroy/idle expiry: a `git bundle`
// made in the VM (commits since the sandbox started plus one commit holding the uncommitted changes,
// built from a temporary index so the sandbox's index and working tree stay untouched) is carried
// through the control channel and fetched by HostGit straight into refs/heads/<branch> of the host
// repository. Nothing else of the host repository changes: no checkout, no other ref, no FETCH_HEAD.
class ChangesService : public QObject, public DestroyGuard {
    Q_OBJECT
public:
    static constexpr int kMaxCommits = 200;
    static constexpr qint64 kMaxBundleBytes = 20 * 1024 * 1024;   // base64 of it stays below the channel's 32 MiB line cap
    static constexpr int kChangesTimeoutMs = 60000;
    static constexpr int kBundleTimeoutMs = 180000;

    ChangesService(SandboxService &sandboxes, ChannelPool &channels, HostGit &git, QObject *parent = nullptr);

    struct ChangesOutcome {
        bool ok = false;
        QString error;
        WorkspaceChanges changes;
    };
    void changes(const RunningSandbox &sandbox, const QString &path, bool includeDiff, qsizetype maxDiffBytes,
                 std::function<void(const ChangesOutcome &)> done);

    struct ExportOutcome {
        bool ok = false;
        bool nothing = false;       // no commit and no change since the sandbox started: no branch touched
        QString error;
        QString branch;             // e.g. chat2sbx/sbx_...
        QString tip;
        QString base;               // empty: the sandbox started without a commit
        bool uncommitted = false;   // the tip is the commit holding the uncommitted changes
        QList<QPair<QString, QString>> commits;   // id, subject; newest first, at most kMaxCommits
        QString repository;         // host path
        QString command;            // how to look at it on the host
    };
    using ExportDone = std::function<void(const ExportOutcome &)>;
    // `branch` empty: chat2sbx/<sandbox_id>. Refuses managed (no host repository) and direct (already
    // on the host) workspaces and sandboxes that are not running.
    void exportWork(const QString &sandboxId, const QString &branch, ExportDone done);

    // A branch under refs/heads/chat2sbx/: `requested` empty gives chat2sbx/<sandbox_id>; a name
    // without the prefix gets it. False with a readable error for a name git would refuse.
    static bool branchName(const QString &sandboxId, const QString &requested, QString &out, QString &error);

    // DestroyGuard: exports a running clone sandbox's work (if any) before it is removed.
    // A cloud clone sandbox whose time-to-live ends soon (SandboxService::cloudExpiryNear): its work
    // goes home as chat2sbx/<id> now, while the VM still answers (expiry may delete it, files and all).
    void keepBeforeCloudExpiry(const QString &sandboxId);
    void secureWork(const SandboxView &sandbox, std::function<void(const DestroyGuard::Outcome &)> done) override;

private:
    void exportRunning(const RunningSandbox &sandbox, const Workspace &workspace, const QString &branch, ExportDone done);

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    SandboxService &m_sandboxes;
    ChannelPool &m_channels;
    HostGit &m_git;
    QHash<QString, bool> m_keeping;   // cloud clone id -> another export asked for while one runs
};

} // namespace chat2sbx
