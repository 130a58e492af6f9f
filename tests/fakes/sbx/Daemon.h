// What stands between a command and the sandbox daemon (sbx-contract.md, behaviours 2 and 3):
// the start-up lines printed the first time a state folder is used, and the sign-in and network
// policy the daemon needs (faults FAKE_SBX_NOT_SIGNED_IN / FAKE_SBX_NO_POLICY).
#pragma once

#include "Commands.h"

namespace fakesbx {

// The first command that needs the daemon in a state folder prints "Starting sandboxd daemon...",
// "Daemon started (PID <n>)", "Logs: <state>/daemon.log" on stdout (FAKE_SBX_DAEMON_NOTICE=stdout,
// the default, as on Windows), on stderr (=stderr, as on macOS), not at all (=off), or on stdout
// before every daemon command (=always, a test knob: every parser must skip it).
void announceDaemonStart(const Context &ctx);

// -1 when signed in, otherwise prints the sign-in error and returns 1.
int requireSignedIn(const Context &ctx);
// -1 when a network policy is set, otherwise prints the policy error and returns 1. Checked by
// every command that starts a sandbox (create, exec / ports --publish of a stopped one).
int requirePolicy(const Context &ctx);

} // namespace fakesbx
