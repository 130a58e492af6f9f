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

} // namespace fakesbx
