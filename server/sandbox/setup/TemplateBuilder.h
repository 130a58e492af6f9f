#pragma once

#include "config/Config.h"

#include <QString>

#include <functional>
#include <memory>

namespace chat2sbx {

// The sandbox side of `chat2sbx setup` (runtime/SetupRun runs the tunnel check first): it checks sbx
// (version floor, sign-in, network policy) and builds the pinned sandbox template (Config::templateRef()) when
// `sbx template ls` lacks it: builder sandbox, provision, stop, template save, remove. Idempotent;
// reports each step as it goes; never leaves the builder behind.
class TemplateBuilder {
public:
    using Output = std::function<void(const QString &line)>;
    using Done = std::function<void(bool ok, const QString &message)>;

    explicit TemplateBuilder(const Config &config);
    ~TemplateBuilder();
    TemplateBuilder(const TemplateBuilder &) = delete;
    TemplateBuilder &operator=(const TemplateBuilder &) = delete;

    // While a long step (image pull, provisioning, template save) runs, a line every so often.
    void setProgressIntervalMs(int ms);
    // Asynchronous: `output` gets every progress line, `done` runs once at the end with the last
    // sentence (what is ready, or what failed and what to do).
    void run(Output output, Done done);
    // Stops the run after the sbx command that runs now (never cut off half-way): the builder is
    // removed and `done` says it was cancelled. A saved template stays. A builder left by a run that
    // never finished (the app quit) is removed by the next run before it makes its own.
    void cancel();

private:
    class Steps;
    std::unique_ptr<Steps> m_steps;
};

} // namespace chat2sbx
