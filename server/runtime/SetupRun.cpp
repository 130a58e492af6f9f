#include "runtime/SetupRun.h"

#include "tunnel/TunnelDoctor.h"

#include <utility>

namespace chat2sbx {

SetupRun::SetupRun(const Config &config) : m_config(config), m_builder(config) {}

void SetupRun::run(Output output, Done done)
{
    m_output = std::move(output);
    m_done = std::move(done);
    if (m_config.enableTunnel)
        checkTunnel();
    else
        buildTemplate();
}

// Not a numbered sbx step: only when the tunnel is enabled. Its failure is reported at the end.
void SetupRun::checkTunnel()
{
    m_step.start();
    m_output(QStringLiteral("[tunnel] Checking the Secure MCP Tunnel (tunnel-client, credentials, doctor) …"));
    TunnelDoctor::run(m_config, m_config.mcpUrl(), [this](const TunnelDoctor::Result &r) {
        for (const QString &line : r.steps)
            m_output(QStringLiteral("      ") + line);
        if (!r.doctorOutput.isEmpty()) {
            QString indented;
            for (const QString &line : r.doctorOutput.split(QLatin1Char('\n')))
                indented += QStringLiteral("      | ") + line + QLatin1Char('\n');
            m_output(indented.chopped(1));
        }
        QString detail;
        if (r.ok) {
            detail = QStringLiteral("tunnel checks passed (doctor does not contact OpenAI: a refused key shows as "
                                    "`unauthorized` in `chat2sbx status` once the tunnel runs)");
        } else {
            m_tunnelProblem = r.problem;
            detail = QStringLiteral("tunnel check failed: %1").arg(r.problem);
        }
        m_output(QStringLiteral("      %1 (%2 s)").arg(detail).arg(m_step.elapsed() / 1000.0, 0, 'f', 1));
        buildTemplate();
    });
}

void SetupRun::buildTemplate()
{
    m_builder.run(m_output, [this](bool ok, const QString &message) {
        if (m_tunnelProblem.isEmpty()) {
            m_done(ok, message);
            return;
        }
        m_done(false, ok ? QStringLiteral("the sandbox side is ready, but the tunnel is not: %1").arg(m_tunnelProblem)
                         : QStringLiteral("%1; the tunnel is not ready either: %2").arg(message, m_tunnelProblem));
    });
}

} // namespace chat2sbx
