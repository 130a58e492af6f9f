// Finds the processes of a sandbox by FAKE_SBX_SANDBOX=<runtime> in /proc/<pid>/environ.
#pragma once

#include <QString>

namespace fakesbx {

// SIGKILLs every such process (repeatedly, until a scan finds none); returns how many were signalled.
int killSandboxProcesses(const QString &runtime);

} // namespace fakesbx
