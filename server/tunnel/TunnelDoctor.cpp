#include "tunnel/TunnelDoctor.h"

#include "config/Config.h"
#include "core/ChildProcess.h"
#include "tunnel/TunnelClientLaunch.h"
#include "tunnel/TunnelCredentials.h"

#include <QFileInfo>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTimer>

#include <memory>

namespace chat2sbx {
namespace {

constexpr qint64 kMaxOutput = 256 * 1024;

void runDoctor(const Config &config, const QString &mcpUrl, const TunnelCredentials &credentials,
               std::shared_ptr<TunnelDoctor::Result> result, const TunnelDoctor::Done &done, int timeoutMs)
{
    TunnelClientLaunch launch;
    launch.tunnelId = credentials.tunnelId;
    launch.mcpServerUrl = mcpUrl;
    ChildSpec spec;
    spec.program = config.tunnelClient;
    spec.arguments = launch.doctorArguments();
    spec.environment = TunnelClientLaunch::environment(QProcessEnvironment::systemEnvironment(), config.tunnelEnv,
                                                       credentials.key, QString());
    spec.timeoutMs = timeoutMs;
    spec.mergeOutput = true;
    spec.maxOutBytes = kMaxOutput;
    const QString key = credentials.key;
    auto finish = [result, done, key](const QByteArray &output, const QString &failure, int exitCode) {
        QString text = QString::fromUtf8(output).trimmed();
        if (!key.isEmpty())
            text.replace(key, QStringLiteral("***"));
        result->doctorOutput = text;
        if (!failure.isEmpty()) {
            result->problem = failure;
            return done(*result);
        }
        if (text.contains(QLatin1String("unknown command \"doctor\""))) {
            result->steps << QStringLiteral("this tunnel-client has no `doctor` command; skipped");
            result->doctorOutput.clear();
            result->ok = true;
            return done(*result);
        }
        result->doctorRan = true;
        static const QRegularExpression failed(QStringLiteral("^FAILED_CHECKS (\\S+)"), QRegularExpression::MultilineOption);
        const QRegularExpressionMatch m = failed.match(text);
        if (m.hasMatch())
            result->failedChecks = m.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts);
        if (exitCode == 0 && text.contains(QLatin1String("RESULT ok"))) {
            result->steps << QStringLiteral("tunnel-client doctor: RESULT ok");
            result->ok = true;
            return done(*result);
        }
        QString why = QStringLiteral("tunnel-client doctor failed (exit code %1)%2").arg(exitCode)
                          .arg(result->failedChecks.isEmpty() ? QString() : QStringLiteral(": ") + result->failedChecks.join(QStringLiteral(", ")));
        if (result->failedChecks.contains(QStringLiteral("mcp_server_reachable")))
            why += QStringLiteral("; the MCP endpoint is not answering: start chat2sbx (`chat2sbx serve` or the tray) and run setup again");
        else
            why += QStringLiteral("; see its explanation above");
        result->problem = why;
        done(*result);
    };
    result->steps << QStringLiteral("running tunnel-client doctor --explain against %1").arg(mcpUrl);
    ChildProcess::run(spec, nullptr, [finish, program = spec.program, timeoutMs](const ChildResult &child) {
        if (!child.started)
            return finish(child.out, QStringLiteral("cannot start %1: %2").arg(program, child.startError), -1);
        if (child.timedOut)
            return finish(child.out, QStringLiteral("tunnel-client doctor did not finish within %1 s").arg(timeoutMs / 1000), -1);
        if (child.crashed)
            return finish(child.out, QStringLiteral("tunnel-client doctor crashed"), child.exitCode);
        finish(child.out, QString(), child.exitCode);
    });
}

} // namespace

void TunnelDoctor::run(const Config &config, const QString &mcpUrl, Done done, int timeoutMs)
{
    auto result = std::make_shared<Result>();
    const QFileInfo client(config.tunnelClient);
    if (!client.exists() || !client.isFile() || !client.isExecutable()) {
        result->problem = QStringLiteral("tunnel-client not found at %1: install it (`brew install openai/tools/tunnel-client`, "
                                         "or a release binary from github.com/openai/tunnel-client), set CHAT2SBX_TUNNEL_CLIENT, "
                                         "or run local-only with CHAT2SBX_ENABLE_TUNNEL=0").arg(config.tunnelClient);
        QTimer::singleShot(0, [done, result] { done(*result); });
        return;
    }
    result->steps << QStringLiteral("tunnel-client found: %1").arg(config.tunnelClient);
    const Config copy = config;
    TunnelCredentials::load(config, [copy, mcpUrl, result, done, timeoutMs](const TunnelCredentials &credentials, const QString &error) {
        if (!error.isEmpty()) {
            result->problem = error;
            return done(*result);
        }
        result->steps << QStringLiteral("tunnel credentials readable (%1), tunnel id %2").arg(credentials.source, credentials.tunnelId);
        runDoctor(copy, mcpUrl, credentials, result, done, timeoutMs);
    });
}

} // namespace chat2sbx
