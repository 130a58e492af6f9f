#include "DoctorCommand.h"

#include "FlagSet.h"
#include "OAuthDiscovery.h"
#include "RunConfig.h"

#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QTcpServer>

#include <cstdio>

namespace faketunnel {
namespace {

struct Check
{
    QString id;
    QString status;   // PASS FAIL SKIP
    QString summary;
    QString why;
    QStringList next;
};

Check configFailure(const QString &message)
{
    Check c{QStringLiteral("config_validation"), QStringLiteral("FAIL"), message, QString(), {}};
    if (message.contains(QLatin1String("tunnel ID"))) {
        c.id = QStringLiteral("tunnel_id");
        c.why = QStringLiteral("tunnel-client cannot register or poll the control plane without a valid tunnel id.");
        c.next << QStringLiteral("set --control-plane.tunnel-id or CONTROL_PLANE_TUNNEL_ID to a tunnel_<32 lowercase hex> value");
    } else if (message.contains(QLatin1String("api-key")) || message.contains(QLatin1String("API key"))
               || message.contains(QLatin1String("api key"))) {
        c.id = QStringLiteral("control_plane_api_key");
        c.why = QStringLiteral("tunnel-client cannot poll the control plane or complete tunnel registration without this key.");
        c.next << QStringLiteral("create or inspect the runtime key in https://platform.openai.com/settings/organization/api-keys");
    } else if (message.contains(QLatin1String("mcp"))) {
        c.id = QStringLiteral("mcp_target");
        c.why = QStringLiteral("tunnel-client needs one main MCP binding before the daemon can forward requests.");
        c.next << QStringLiteral("set --mcp.server-url or --mcp.command, or update the profile to include channel=main");
    } else {
        c.why = QStringLiteral("tunnel-client found a configuration problem that prevents the daemon from starting cleanly.");
    }
    return c;
}

Check reachability(const QUrl &url)
{
    QNetworkAccessManager nam;
    nam.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest req(url);
    req.setTransferTimeout(2000);
    QNetworkReply *reply = nam.get(req);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status > 0)
        return {QStringLiteral("mcp_server_reachable"), QStringLiteral("PASS"),
                QStringLiteral("HTTP %1 from %2").arg(status).arg(url.toString()), QString(), {}};
    return {QStringLiteral("mcp_server_reachable"), QStringLiteral("FAIL"),
            QStringLiteral("dial tcp %1: %2").arg(url.authority(), reply->errorString()),
            QStringLiteral("tunnel-client should be able to reach the main MCP target before the daemon starts polling."),
            {QStringLiteral("start the local MCP server or fix the URL/host/port"), QStringLiteral("rerun: tunnel-client doctor")}};
}

Check oauthMetadata(const RunConfig &cfg)
{
    OAuthDiscovery discovery(cfg.mcpServerUrl, cfg.probeHeaders);
    Check c{QStringLiteral("oauth_metadata"), QStringLiteral("FAIL"), QString(), QString(), {}};
    QEventLoop loop;
    QObject::connect(&discovery, &OAuthDiscovery::finished, &loop, [&](bool ok, bool optional, const QString &detail) {
        c.status = ok ? QStringLiteral("PASS") : QStringLiteral("FAIL");
        c.summary = optional ? QStringLiteral("OAuth metadata not advertised; all candidates returned HTTP 404") : detail;
        if (!ok) {
            c.why = QStringLiteral("readiness waits for OAuth protected-resource discovery; only an all-404 answer counts as no OAuth.");
            c.next << QStringLiteral("answer 404 on /.well-known/oauth-protected-resource* or serve valid metadata");
        }
        loop.quit();
    });
    discovery.start();
    loop.exec();
    return c;
}

Check healthListener(const RunConfig &cfg)
{
    QTcpServer server;
    if (!server.listen(cfg.healthHost, cfg.healthPort))
        return {QStringLiteral("health_listener"), QStringLiteral("FAIL"), server.errorString(),
                QStringLiteral("tunnel-client must bind the local health/admin listener before it can serve /healthz, /readyz, or /ui."),
                {QStringLiteral("choose a different --health.listen-addr or stop the conflicting process")}};
    const QString base = QStringLiteral("http://%1:%2").arg(cfg.healthHost.toString()).arg(server.serverPort());
    return {QStringLiteral("health_listener"), QStringLiteral("PASS"),
            cfg.healthPort == 0 ? QStringLiteral("ephemeral bind ok on ") + base : QStringLiteral("will bind ") + base, QString(), {}};
}

} // namespace

int doctorCommand(const QStringList &args)
{
    bool explain = false;
    bool json = false;
    QStringList rest;
    for (const QString &a : args) {
        if (a == QLatin1String("--explain"))
            explain = true;
        else if (a == QLatin1String("--json"))
            json = true;
        else
            rest << a;
    }
    QList<Check> checks;
    FlagSet flags;
    QString error;
    if (!flags.parse(rest, &error)) {
        std::fprintf(stderr, "Error: %s\n", qPrintable(error));
        return 1;
    }
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    const ConfigOutcome outcome = buildRunConfig(flags, env);
    checks << Check{QStringLiteral("config_source"), QStringLiteral("PASS"),
                    outcome.config.configFile.isEmpty() ? QStringLiteral("flags/environment only") : outcome.config.configFile, QString(), {}};
    if (!outcome.ok) {
        checks << configFailure(outcome.error);
    } else {
        const RunConfig &cfg = outcome.config;
        checks << Check{QStringLiteral("tunnel_id"), QStringLiteral("PASS"), cfg.tunnelId, QString(), {}}
               << Check{QStringLiteral("control_plane_api_key"), QStringLiteral("PASS"),
                        flags.isSet(QStringLiteral("control-plane.api-key")) ? flags.value(QStringLiteral("control-plane.api-key"))
                                                                             : cfg.apiKeySource, QString(), {}}
               << Check{QStringLiteral("mcp_target"), QStringLiteral("PASS"), cfg.mcpServerUrl.toString(), QString(), {}}
               << reachability(cfg.mcpServerUrl) << oauthMetadata(cfg) << healthListener(cfg);
    }
    QStringList failed;
    for (const Check &c : checks)
        if (c.status == QLatin1String("FAIL"))
            failed << c.id;
    QByteArray out;
    if (json) {
        QJsonArray list;
        for (const Check &c : checks)
            list.append(QJsonObject{{QStringLiteral("id"), c.id}, {QStringLiteral("status"), c.status}, {QStringLiteral("summary"), c.summary}});
        QJsonObject report{{QStringLiteral("result"), failed.isEmpty() ? QStringLiteral("ok") : QStringLiteral("fail")},
                           {QStringLiteral("checks"), list}};
        if (!failed.isEmpty())
            report.insert(QStringLiteral("failed_checks"), QJsonArray::fromStringList(failed));
        out = QJsonDocument(report).toJson();
    } else {
        QString text;
        for (const Check &c : checks)
            text += QStringLiteral("CHECK %1 %2 %3\n").arg(c.id, -24).arg(c.status, -4).arg(c.summary);
        if (failed.isEmpty())
            text += QStringLiteral("\nRESULT ok\nNEXT   tunnel-client run\n");
        else
            text += QStringLiteral("\nRESULT fail\nFAILED_CHECKS %1\nEXIT_CODE 2\n").arg(failed.join(QLatin1Char(',')));
        for (const Check &c : checks) {
            if (!explain || c.status == QLatin1String("PASS"))
                continue;
            text += QStringLiteral("\nCHECK %1   %2\n").arg(c.id, c.status);
            if (!c.why.isEmpty())
                text += QStringLiteral("Why this matters:\n  %1\n").arg(c.why);
            if (!c.next.isEmpty()) {
                text += QStringLiteral("\nWhat to do next:\n");
                for (int i = 0; i < c.next.size(); ++i)
                    text += QStringLiteral("  %1. %2\n").arg(i + 1).arg(c.next.at(i));
            }
        }
        out = text.toUtf8();
    }
    std::fwrite(out.constData(), 1, static_cast<size_t>(out.size()), stdout);
    std::fflush(stdout);
    return failed.isEmpty() ? 0 : 2;
}

} // namespace faketunnel
