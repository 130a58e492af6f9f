#pragma once

#include <QObject>
#include <QString>

#include <functional>

namespace chat2sbx {

class ChannelPool;
class HostGit;
struct RunningSandbox;

// A clone sandbox's git state for its checkpoints: its commits, local branches, HEAD, the
// index and the working tree with untracked files (ignored files are left out), carried out of the VM
// as a git bundle the way export_changes carries work (helper ops `git_save`, `git_put_back`) and kept
// on this computer in the checkpoint's folder (`refs`, `work.bundle`). A template may not hold the
// clone (sbx makes it fresh from the host repository on create), so a restore or fork puts this back
// into the new VM's clone. The user's repository is only read (`git bundle verify`).
class CloneCheckpointWork : public QObject {
    Q_OBJECT
public:
    static constexpr qint64 kMaxBundleBytes = 20 * 1024 * 1024;   // as export_changes: below the channel's line cap
    static constexpr int kTimeoutMs = 180000;

    CloneCheckpointWork(ChannelPool &channels, HostGit &git, QObject *parent = nullptr);

    using Done = std::function<void(bool ok, const QString &error)>;
    // Writes the state of `sandbox`'s clone into `dir` (made); `bytes` is what it takes there.
    void save(const RunningSandbox &sandbox, const QString &dir, std::function<void(bool ok, qint64 bytes, const QString &error)> done);
    // Before anything is removed: `repository` still has every commit the saved state builds on.
    void checkHost(const QString &repository, const QString &dir, Done done);
    // Makes `sandbox`'s clone what `dir` holds: branches, HEAD, index and working tree.
    void putBack(const RunningSandbox &sandbox, const QString &dir, Done done);
    static bool holdsState(const QString &dir);

private:
    ChannelPool &m_channels;
    HostGit &m_git;
};

} // namespace chat2sbx
