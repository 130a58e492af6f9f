#pragma once
// The processes a fake-sbx sandbox runs, seen from the host's /proc (bubblewrap without a pid
// namespace: the sandbox's processes are visible here).
#include <QByteArray>
#include <QString>
#include <QStringList>

namespace chat2sbx::test {

// /proc/<pid>/<name>, empty when the process is gone.
QByteArray procFile(const QString &pid, const char *name);

// Dead, or a zombie nobody reaped yet.
bool isGone(const QString &pid);

// Live processes that run this sandbox's helper script: helpers, their request handlers and their
// answer writers (forks of a helper, sharing its command line), not the bash sessions' watchers.
QStringList helperProcesses(const QString &runtimeName);

} // namespace chat2sbx::test
