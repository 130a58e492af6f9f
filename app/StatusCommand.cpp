// `chat2sbx status`: effective configuration and whether a server is running and healthy.
#include "Command.h"

#include "runtime/PidFile.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace chat2sbx::app {
namespace {

struct Probe {
    bool reachable = false;
    QJsonObject health;
    QString error;
};

Probe probeHealth(const Config &config)
{
    Probe probe;
    QNetworkAccessManager nam;
    const QString host = config.host == QLatin1String("0.0.0.0") ? QStringLiteral("127.0.0.1") : config.host;
    QNetworkRequest request(QUrl(QStringLiteral("http://%1:%2/healthz").arg(host).arg(config.port)));
    request.setTransferTimeout(3000);
    QNetworkReply *reply = nam.get(request);
    QObject::connect(reply, &QNetworkReply::finished, [&] {
        if (reply->error() == QNetworkReply::NoError) {
            const QJsonDocument doc = QJsonDocument::fromJson(reply->readAll());
            probe.health = doc.object();
            probe.reachable = probe.health.value(QStringLiteral("name")).toString() == QLatin1String("chat2sbx");
            if (!probe.reachable)
                probe.error = QStringLiteral("something else answers on port %1").arg(config.port);
        } else {
            probe.error = reply->errorString();
        }
        QCoreApplication::exit(0);
    });
    QCoreApplication::exec();
    reply->deleteLater();
    return probe;
}

int runStatus(CommandContext &ctx)
{
    const Config &c = ctx.config;
    const qint64 pid = PidFile::runningPid(c.pidFilePath());
    const Probe probe = probeHealth(c);
    const bool healthy = probe.reachable;

    const QString limit = c.maxActiveSandboxes > 0 ? QString::number(c.maxActiveSandboxes) : QStringLiteral("unlimited");
    if (ctx.json) {
        QJsonObject server{
            {QStringLiteral("running"), pid > 0 || probe.reachable},
            {QStringLiteral("pid"), pid > 0 ? QJsonValue(pid) : QJsonValue()},
            {QStringLiteral("healthy"), healthy},
            {QStringLiteral("mcpUrl"), c.mcpUrl()},
        };
        if (healthy) {
            server.insert(QStringLiteral("version"), probe.health.value(QStringLiteral("version")));
            server.insert(QStringLiteral("uptimeMs"), probe.health.value(QStringLiteral("uptimeMs")));
            server.insert(QStringLiteral("activeSandboxes"), probe.health.value(QStringLiteral("activeSandboxes")));
        } else if (!probe.error.isEmpty()) {
            server.insert(QStringLiteral("error"), probe.error);
        }
        ctx.printJson(QJsonObject{
            {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
            {QStringLiteral("server"), server},
            {QStringLiteral("config"), QJsonObject{
                 {QStringLiteral("host"), c.host},
                 {QStringLiteral("port"), c.port},
                 {QStringLiteral("dataRoot"), c.dataRoot},
                 {QStringLiteral("databasePath"), c.databasePath},
                 {QStringLiteral("tunnelEnabled"), c.enableTunnel},
                 {QStringLiteral("maxActiveSandboxes"), c.maxActiveSandboxes > 0 ? QJsonValue(c.maxActiveSandboxes) : QJsonValue(QStringLiteral("unlimited"))},
                 {QStringLiteral("sbx"), c.sbxPath},
             }},
        });
    } else {
        QString text;
        text += QStringLiteral("chat2sbx %1\n").arg(QStringLiteral(CHAT2SBX_VERSION));
        if (healthy) {
            text += QStringLiteral("server:     running (PID %1), healthy, up %2 s\n")
                        .arg(pid > 0 ? QString::number(pid) : QStringLiteral("?"))
                        .arg(probe.health.value(QStringLiteral("uptimeMs")).toDouble() / 1000.0, 0, 'f', 0);
            text += QStringLiteral("sandboxes:  %1 active / limit %2\n")
                        .arg(probe.health.value(QStringLiteral("activeSandboxes")).toInt()).arg(limit);
        } else if (pid > 0) {
            text += QStringLiteral("server:     PID %1 running but not answering: %2\n").arg(pid).arg(probe.error);
        } else {
            text += QStringLiteral("server:     not running\n");
        }
        text += QStringLiteral("endpoint:   %1\n").arg(c.mcpUrl());
        text += QStringLiteral("bind:       %1:%2%3\n").arg(c.host).arg(c.port)
                    .arg(c.isLoopbackBind() ? QStringLiteral(" (loopback)") : QStringLiteral(" (NOT loopback: bearer token required)"));
        text += QStringLiteral("data root:  %1\n").arg(c.dataRoot);
        text += QStringLiteral("tunnel:     %1\n").arg(c.enableTunnel ? QStringLiteral("enabled") : QStringLiteral("disabled (local-only)"));
        text += QStringLiteral("limit:      %1 active sandboxes\n").arg(limit);
        ctx.print(text);
    }
    if (!healthy)
        return ctx.fail(pid > 0 ? QStringLiteral("server (PID %1) is not healthy: %2").arg(pid).arg(probe.error)
                                : QStringLiteral("server is not running"));
    return 0;
}

const bool registered = registerCommand({QStringLiteral("status"), QStringLiteral("status [--json]"),
                                         QStringLiteral("Show service, MCP and tunnel readiness"), false, runStatus});

} // namespace
} // namespace chat2sbx::app
