// Sandbox lifecycle of the real CLI (sbx-contract.md, behaviour 1 and the `stop` row): a sandbox
// stays running while an `exec` is attached; once none has been attached for the grace period
// (FAKE_SBX_IDLE_STOP_MS) an idle watcher stops it. Stopping kills every process of the sandbox
// and keeps its files; exec / ports --publish start a stopped sandbox again.
#pragma once

#include "Commands.h"
#include "FakeState.h"

#include <QString>

#include <string>
#include <vector>

namespace fakesbx {

// The grace period: FAKE_SBX_IDLE_STOP_MS (default 5000); "off" or a negative value: never.
long idleStopMs(const Faults &faults);

// Records the calling process (pid and start time) as an attached session of <runtime>; the
// record lapses when the process exits. Call with the StateLock held, right before execve.
void registerAttached(const StateDir &state, const QString &runtime);
// Live attached sessions of <runtime>; records of exited processes are deleted.
int attachedCount(const StateDir &state, const QString &runtime);

// Kills every process of the sandbox (its commands, port forwarders, attached execs), sets the
// status "stopped" and forgets the attachments. Files stay. Call with the StateLock held.
bool stopSandbox(const Context &ctx, SandboxMeta *meta, QString *error);
// Starts a stopped sandbox: status "running", the recorded ports forwarded again (a host port
// that cannot be bound any more is dropped), the idle watcher started, and
// "Sandbox <name> started successfully" on stderr. Call with the StateLock held.
bool startSandbox(const Context &ctx, SandboxMeta *meta, QString *error);
// Starts the idle watcher of a running sandbox unless one is alive. Call with the StateLock held.
void ensureIdleWatcher(const Context &ctx, const QString &runtime);

// "<pid>-<start time>" of a process, and whether that very process is still alive (not a zombie).
QString identity(long pid);
bool identityAlive(const QString &id);
// Double fork: the process is re-parented at once and keeps none of the caller's descriptors but
// keepFd (as its descriptor 3) when given. Returns its pid, or -1.
long spawnDetached(std::vector<std::string> argStore, std::vector<std::string> envStore, int keepFd = -1);

// Body of the hidden "__idle-watch <runtime>" command (FAKE_SBX_STATE names the state folder).
int runIdleWatcher(const QStringList &args);

} // namespace fakesbx
