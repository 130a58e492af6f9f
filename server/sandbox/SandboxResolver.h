#pragma once

#include <QString>

namespace chat2sbx {

// What an in-sandbox tool needs to reach a sandbox.
struct RunningSandbox {
    QString sandboxId;       // public id (sbx_...)
    QString runtimeName;     // internal sbx name: never put it in a tool result
    QString workspacePath;   // absolute path of the workspace inside the VM (the mount point)
    bool managedWorkspace = false;
    bool wokeFromSleep = false;   // resolving it woke a stopped sandbox (the first request takes longer)
};

// Implemented by SandboxService. Finds a running sandbox for a tool call and renews its idle deadline
// (every tool call that reaches a sandbox renews it). A stopped (sleeping) sandbox is woken: it
// becomes running again and its control channel's `sbx exec` starts the VM. On failure returns false with a readable reason
// for the model ("sandbox sbx_... is not running (state failed: ...)").
class SandboxResolver {
public:
    virtual ~SandboxResolver() = default;
    virtual bool resolveRunning(const QString &sandboxId, RunningSandbox &out, QString &error) = 0;
};

} // namespace chat2sbx
