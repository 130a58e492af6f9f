#pragma once

#include <QString>

namespace chat2sbx {

// stopped: the VM is asleep (files kept, processes gone); the next tool call wakes it.
enum class SandboxState { Creating, Running, Stopped, Destroying, Failed, Destroyed };

QString sandboxStateName(SandboxState state);
bool parseSandboxState(const QString &text, SandboxState &out);

// The one meaning of an active sandbox: it holds its workspace and counts against
// maxActiveSandboxes. creating, running, stopped (asleep: the next tool call wakes it) and
// destroying are active; failed and destroyed are not.
bool isActiveSandboxState(SandboxState state);
// The active states as an SQL list for `state IN ...`, e.g. ('creating','running',...).
QString activeSandboxStatesSql();

} // namespace chat2sbx
