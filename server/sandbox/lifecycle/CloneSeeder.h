#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/Workspace.h"

#include <QString>

#include <functional>

namespace chat2sbx {

// What gives a cloud sandbox its clone workspace. A cloud VM has no host mount, so `sbx --clone`
// cannot make it: the approved repository's checked-out commit is carried in instead. SandboxCreator
// asks it once the new VM answers, before the sandbox counts as running; CloudCloneSeed implements it.
class CloneSeeder {
public:
    virtual ~CloneSeeder() = default;
    // `done(ok, error)` runs exactly once.
    virtual void seed(const RunningSandbox &sandbox, const Workspace &workspace,
                      std::function<void(bool ok, const QString &error)> done) = 0;
};

} // namespace chat2sbx
