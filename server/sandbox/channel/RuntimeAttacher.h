#pragma once

#include "sandbox/channel/SandboxResolver.h"

#include <functional>

namespace chat2sbx {

// SandboxService calls this after `sbx create` succeeded, and at start-up for every runtime that
// reconciliation re-attaches, to bring up what the sandbox needs to serve tools (the in-sandbox
// control channel) and check that it is healthy. The sandbox becomes `running` only if done(true).
// detach() runs before `sbx rm` and when the service shuts down.
class RuntimeAttacher {
public:
    virtual ~RuntimeAttacher() = default;
    virtual void attach(const RunningSandbox &sandbox, std::function<void(bool ok, const QString &error)> done) = 0;
    virtual void detach(const QString &sandboxId) = 0;
};

} // namespace chat2sbx
