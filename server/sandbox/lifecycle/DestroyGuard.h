#pragma once

#include <QString>

#include <functional>

namespace chat2sbx {

struct SandboxView;

// What has to happen before a sandbox's runtime is removed so that no work is lost (a clone
// sandbox's unexported commits and edits become a branch in the host repository). SandboxService
// asks it before every destroy and idle expiry; ChangesService implements it.
class DestroyGuard {
public:
    struct Outcome {
        bool ok = false;          // safe to remove the runtime
        QString branch;           // the host branch now holding the work; empty when there was nothing to keep
        QString summary;          // one sentence for the result, the notification and the log
        QString error;            // why the work could not be kept (ok false)
    };
    virtual ~DestroyGuard() = default;
    virtual void secureWork(const SandboxView &sandbox, std::function<void(const Outcome &)> done) = 0;
};

} // namespace chat2sbx
