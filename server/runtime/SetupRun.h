#pragma once

#include "config/Config.h"
#include "sandbox/setup/TemplateBuilder.h"

#include <QElapsedTimer>
#include <QString>

namespace chat2sbx {

// What `chat2sbx setup` does. With the tunnel enabled it first checks the Secure MCP Tunnel
// (TunnelDoctor: client, credentials, `tunnel-client doctor --explain`); then TemplateBuilder checks
// sbx and builds the pinned template. A tunnel problem does not stop the sandbox steps: it is added
// to the last sentence and makes the run fail.
class SetupRun {
public:
    using Output = TemplateBuilder::Output;
    using Done = TemplateBuilder::Done;

    explicit SetupRun(const Config &config);

    void setProgressIntervalMs(int ms) { m_builder.setProgressIntervalMs(ms); }
    // Asynchronous, like TemplateBuilder::run.
    void run(Output output, Done done);

private:
    void checkTunnel();
    void buildTemplate();

    Config m_config;
    TemplateBuilder m_builder;
    QElapsedTimer m_step;
    QString m_tunnelProblem;
    Output m_output;
    Done m_done;
};

} // namespace chat2sbx
