#pragma once

#include <QString>

#include <functional>
#include <memory>

namespace chat2sbx {

// A check that must pass once the channel that starts a woken sandbox's VM has its first answer
// from the helper, before any request of a tool call is sent to it: sbx shares a host folder again,
// by its path, each time the VM starts. Copies of a RunningSandbox share it; it runs once.
class StartCheck {
public:
    explicit StartCheck(std::function<bool(QString &why)> check) : m_check(std::move(check)) {}
    bool pending() const { return static_cast<bool>(m_check); }
    // False with `why` when the sandbox must not be used. Releases what the check holds.
    bool run(QString &why)
    {
        const auto check = std::move(m_check);
        m_check = nullptr;
        return !check || check(why);
    }

private:
    std::function<bool(QString &why)> m_check;
};

// What an in-sandbox tool needs to reach a sandbox.
struct RunningSandbox {
    QString sandboxId;       // public id (sbx_...)
    QString runtimeName;     // internal sbx name: never put it in a tool result
    QString workspacePath;   // absolute path of the workspace inside the VM (the mount point)
    bool managedWorkspace = false;
    // In Docker's cloud (`sbx --cloud exec`): no host mount, its workspace is ~/workspace in the VM.
    bool cloud = false;
    bool wokeFromSleep = false;   // resolving it woke a stopped sandbox (the first request takes longer)
    std::shared_ptr<StartCheck> startCheck;   // set with wokeFromSleep for a host folder
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
