#pragma once

#include <QString>

namespace chat2sbx {

// Why a bash session is `lost` (its processes died with the VM) and why a sandbox is `stopped`:
// texts the agent reads in bash_list / bash_poll / sandbox_get and can act on.
namespace stopReasons {

// Sessions of a sandbox whose VM stopped while chat2sbx was not running (sbx-contract.md §1).
inline QString sessionLostWhileDown()
{
    return QStringLiteral("the sandbox stopped while chat2sbx was not running; processes ended, files are kept");
}

// Sessions of a sandbox whose VM stopped while chat2sbx ran (outside chat2sbx, or put to sleep).
inline QString sessionLostStopped()
{
    return QStringLiteral("the sandbox stopped; processes ended, files are kept");
}

// A session whose watcher in the VM vanished without recording an exit status.
inline QString sessionLostWithoutStatus()
{
    return QStringLiteral("the command ended without an exit status (its processes were killed, e.g. the sandbox "
                          "stopped and started again); files are kept");
}

inline QString sandboxStoppedWhileDown()
{
    return QStringLiteral("its VM stopped while chat2sbx was not running (sbx stops an idle sandbox by itself)");
}

inline QString sandboxStoppedOutside()
{
    return QStringLiteral("its VM stopped while chat2sbx was running (stopped outside chat2sbx, e.g. `sbx stop`, or by sbx itself)");
}

inline QString sandboxSlept(qint64 idleSeconds)
{
    return QStringLiteral("put to sleep after %1 s without a tool call (sandboxSleepSeconds) to free its memory").arg(idleSeconds);
}

inline QString sandboxPaused()
{
    return QStringLiteral("paused by the user (files kept; the next tool call wakes it)");
}

inline QString sessionLostPaused()
{
    return QStringLiteral("the user paused the sandbox, which ended the command (files are kept)");
}

// A woken VM whose host folder changed while it started: stopped again before anything ran in it.
inline QString wakeRefused(const QString &why)
{
    return QStringLiteral("stopped again right after waking: %1").arg(why);
}

} // namespace stopReasons
} // namespace chat2sbx
