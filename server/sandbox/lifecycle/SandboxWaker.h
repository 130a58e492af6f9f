#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/SandboxRepository.h"
#include "state/Workspace.h"

#include <QObject>
#include <QSet>
#include <QString>

#include <memory>

namespace chat2sbx {

class SandboxRuntimeOps;

// Wakes a sleeping sandbox for a tool call: stopped -> running (persisted first); the channel's
// `sbx exec` starts the VM. A host folder must still be the approved one before and after the VM
// starts (sbx shares it again by its path); when the start check finds otherwise the sandbox goes
// back to sleep before anything of the call ran in it. Ports sbx no longer publishes are dropped.
class SandboxWaker : public QObject {
    Q_OBJECT
public:
    explicit SandboxWaker(SandboxRuntimeOps &ops, QObject *parent = nullptr);

    // `startCheck` is set for a host folder: whether the VM, started by the channel's `sbx exec`,
    // got the approved folder (see StartCheck).
    bool wake(const SandboxRecord &r, std::shared_ptr<StartCheck> &startCheck, QString &error);
    // A host workspace's folder must still be the approved directory whenever a VM may share it
    // again (a wake, an export of a sleeping clone). False with a readable reason when it was
    // renamed, replaced or swapped.
    bool checkHostFolder(const QString &sandboxId, const Workspace &workspace, QString &error) const;

private:
    // The start check failed: back to stopped, with why, before anything of a tool call ran in it.
    void refuseWake(const QString &sandboxId, const QString &why);
    void checkPortsAfterWake(const QString &id, const QString &runtimeName);
    // A stopped cloud sandbox is started again in the cloud first (`sbx --cloud run --detached`,
    // its exec does not start it): the call that finds it stopped is told to call again.
    bool resumeCloud(const SandboxRecord &r, QString &error);
    QSet<QString> m_resuming;
    QSet<QString> m_resumed;

    // Outlives this: SandboxService declares it first.
    SandboxRuntimeOps &m_ops;
};

} // namespace chat2sbx
