#pragma once

#include "sandbox/lifecycle/CloneSeeder.h"

#include <QObject>

namespace chat2sbx {

class ChannelPool;
class HostGit;

// A clone workspace in a cloud sandbox: the commit checked out in the approved repository (with its
// history, as `git bundle create … HEAD` on this computer) goes into the VM through the control
// channel (helper op `git_seed`), which makes ~/workspace a clone at that commit on the host's branch
// name, and records it as where the sandbox started. From then on the work comes home exactly as a
// local clone's does (ChangesService: export_changes, fetch, the destroy guard). Uncommitted changes
// of the host checkout are not carried, as with `sbx --clone`.
class CloudCloneSeed : public QObject, public CloneSeeder {
    Q_OBJECT
public:
    static constexpr qint64 kMaxBundleBytes = 20 * 1024 * 1024;   // as export_changes: below the channel's line cap
    static constexpr int kTimeoutMs = 180000;

    CloudCloneSeed(ChannelPool &channels, HostGit &git, QObject *parent = nullptr);

    void seed(const RunningSandbox &sandbox, const Workspace &workspace,
              std::function<void(bool ok, const QString &error)> done) override;

private:
    void send(const RunningSandbox &sandbox, const QString &repository, const QString &commit, const QString &branch,
              std::function<void(bool, const QString &)> done);

    ChannelPool &m_channels;
    HostGit &m_git;
};

} // namespace chat2sbx
