// Finds the processes of a sandbox by FAKE_SBX_SANDBOX=<runtime> in /proc/<pid>/environ.
#pragma once

#include <QList>
#include <QString>

#include <sys/types.h>

namespace fakesbx {

// The processes of the sandbox now (this process left out).
QList<pid_t> sandboxProcesses(const QString &runtime);

// SIGKILLs every such process (repeatedly, until a scan finds none); returns how many were signalled.
int killSandboxProcesses(const QString &runtime);

// A capture is of one point in time (sbx snapshots the VM's filesystem): while one of these lives,
// the sandbox's processes are stopped (SIGSTOP), so a copy of its files does not race them, and they
// go on (SIGCONT) when it ends. A helper deleting its request files once made `cp` fail the move.
class FrozenSandbox {
public:
    explicit FrozenSandbox(const QString &runtime);
    ~FrozenSandbox();
    FrozenSandbox(const FrozenSandbox &) = delete;
    FrozenSandbox &operator=(const FrozenSandbox &) = delete;

private:
    QList<pid_t> m_stopped;
};

// Copies the contents of `from` (a sandbox's files) to `to` as one point in time: with the sandbox's
// processes stopped (FrozenSandbox). An exec that was already under way when they were stopped can
// still start its process after that and change the files mid-copy (a new helper sweeping its
// predecessor's run folder once failed a move this way): then `to` is emptied, the processes stopped
// again, now with that one, and the copy made again (three tries).
bool captureTreeContents(const QString &runtime, const QString &from, const QString &to, QString *error);

} // namespace fakesbx
