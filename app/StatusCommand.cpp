// `chat2sbx status`: effective configuration and whether a server is running and healthy: the MCP
// endpoint, the Secure MCP Tunnel, sandboxes against the limit, pending approvals. Exit 0 only when
// everything that is enabled is healthy.
#include "Command.h"

#include "runtime/PidFile.h"
#include "sandbox/SandboxPresenter.h"

#include <QCoreApplication>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTimer>

namespace chat2sbx::app {
namespace {

struct HttpProbe {
    int status = 0;          // 0: no HTTP answer
    QByteArray body;
    QString error;
};

// One GET against the local server; runs the (command's own) event loop until it finishes.
HttpProbe probe(const QString &url, const QList<QPair<QByteArray, QByteArray>> &headers = {})
{
    HttpProbe result;
    QNetworkAccessManager nam;
    nam.setProxy(QNetworkProxy::NoProxy);
    QNetworkRequest request{QUrl(url)};
    for (const auto &h : headers)
        request.setRawHeader(h.first, h.second);
    request.setTransferTimeout(3000);
    QNetworkReply *reply = nam.get(request);
    QObject::connect(reply, &QNetworkReply::finished, [&] {
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.body = reply->readAll();
        if (result.status == 0)
            result.error = reply->errorString();
        QCoreApplication::exit(0);
    });
    QCoreApplication::exec();
    reply->deleteLater();
    return result;
}

QString localHost(const Config &config)
{
    if (config.host == QLatin1String("0.0.0.0") || config.host == QLatin1String("localhost"))
        return QStringLiteral("127.0.0.1");
    if (config.host == QLatin1String("::"))
        return QStringLiteral("[::1]");
    return config.host.contains(QLatin1Char(':')) ? QStringLiteral("[%1]").arg(config.host) : config.host;
}

// Counts rows in the database read-only (used when no server answers); -1 when unavailable.
qint64 countReadOnly(const Config &config, const QString &sql)
{
    if (!QFileInfo(config.databasePath).isFile())
        return -1;
    qint64 n = -1;
    const QString name = QStringLiteral("chat2sbx-status-ro");
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), name);
        db.setDatabaseName(config.databasePath);
        db.setConnectOptions(QStringLiteral("QSQLITE_OPEN_READONLY;QSQLITE_BUSY_TIMEOUT=2000"));
        if (db.open()) {
            QSqlQuery q(db);
            if (q.exec(sql) && q.next())
                n = q.value(0).toLongLong();
        }
        db.close();
    }
    QSqlDatabase::removeDatabase(name);
    return n;
}

int runStatus(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("status takes no arguments besides --json (got '%1')").arg(ctx.args.join(QLatin1Char(' '))));
    const Config &c = ctx.config;
    const qint64 pid = PidFile::runningPid(c.pidFilePath());
    const QString base = QStringLiteral("http://%1:%2").arg(localHost(c)).arg(c.port);

    // The server: /healthz answers with our name.
    const HttpProbe healthProbe = probe(base + QStringLiteral("/healthz"));
    const QJsonObject health = QJsonDocument::fromJson(healthProbe.body).object();
    const bool healthy = healthProbe.status == 200 && health.value(QStringLiteral("name")).toString() == QLatin1String("chat2sbx");
    QString serverError;
    if (!healthy)
        serverError = healthProbe.status == 0 ? healthProbe.error
                                              : QStringLiteral("something else answers on port %1 (HTTP %2)").arg(c.port).arg(healthProbe.status);

    // The MCP endpoint: any answer but 404 (GET may be 405 by the spec, 401 with a token) means it is served.
    bool mcpReachable = false;
    QString mcpError;
    if (healthy) {
        const HttpProbe mcp = probe(base + QStringLiteral("/mcp"), {{"Accept", "application/json, text/event-stream"}});
        mcpReachable = mcp.status != 0 && mcp.status != 404 && mcp.status < 500;
        if (!mcpReachable)
            mcpError = mcp.status == 0 ? mcp.error : QStringLiteral("GET /mcp answered HTTP %1").arg(mcp.status);
    } else {
        mcpError = QStringLiteral("server not reachable");
    }

    // The tunnel: what the running server reports; its own configuration is authoritative.
    const QJsonObject tunnel = health.value(QStringLiteral("tunnel")).toObject();
    const bool tunnelEnabled = healthy && tunnel.contains(QStringLiteral("enabled"))
                                   ? tunnel.value(QStringLiteral("enabled")).toBool() : c.enableTunnel;
    const QString tunnelState = !tunnelEnabled ? QStringLiteral("disabled")
                                : healthy      ? tunnel.value(QStringLiteral("state")).toString(QStringLiteral("unknown"))
                                               : QStringLiteral("unknown");
    const QString tunnelError = tunnel.value(QStringLiteral("lastError")).toString();
    const QString tunnelReadiness = tunnel.value(QStringLiteral("readiness")).toString();
    const QString tunnelDetail = tunnel.value(QStringLiteral("detail")).toString();
    // Connected: the tunnel service answers the client's polls, so ChatGPT can reach us.
    const bool tunnelOk = !tunnelEnabled || tunnelState == QLatin1String("connected");

    // Without the local token a server that requires it answers only status, name and tunnel state.
    const qint64 active = healthy && health.contains(QStringLiteral("activeSandboxes"))
                              ? health.value(QStringLiteral("activeSandboxes")).toInteger()
                                  : countReadOnly(c, QStringLiteral("SELECT COUNT(*) FROM sandboxes WHERE state IN ('creating','running','destroying')"));
    const qint64 warm = healthy && health.contains(QStringLiteral("warmSandboxes"))
                            ? health.value(QStringLiteral("warmSandboxes")).toInteger()
                            : countReadOnly(c, QStringLiteral("SELECT COUNT(*) FROM warm_sandboxes WHERE state = 'ready'"));
    const qint64 pending = healthy && health.contains(QStringLiteral("pendingApprovals"))
                               ? health.value(QStringLiteral("pendingApprovals")).toInteger()
                               : countReadOnly(c, QStringLiteral("SELECT COUNT(*) FROM approvals WHERE state = 'pending'"));
    const QString dataRoot = healthy ? health.value(QStringLiteral("dataRoot")).toString(c.dataRoot) : c.dataRoot;
    const QString limit = sandboxLimitText(c.maxActiveSandboxes);

    // The one line on stderr when something enabled is not healthy.
    QStringList problems;
    if (!healthy) {
        problems << (pid > 0 ? QStringLiteral("server (PID %1) is not healthy: %2").arg(pid).arg(serverError)
                             : QStringLiteral("server is not running"));
    } else {
        if (!mcpReachable)
            problems << QStringLiteral("MCP endpoint %1 is not reachable: %2").arg(c.mcpUrl(), mcpError);
        if (!tunnelOk) {
            const QString why = !tunnelDetail.isEmpty() ? tunnelDetail : !tunnelError.isEmpty() ? tunnelError : tunnelReadiness;
            problems << (why.isEmpty() ? QStringLiteral("tunnel is %1").arg(tunnelState) : QStringLiteral("tunnel is %1: %2").arg(tunnelState, why));
        }
    }
    const QString problem = problems.join(QStringLiteral("; "));

    QStringList missingRoots;
    for (const QString &root : c.allowedHostRoots)
        if (!QFileInfo(root).isDir())
            missingRoots << root;
    if (ctx.json) {
        QJsonObject server{
            {QStringLiteral("running"), pid > 0 || healthy},
            {QStringLiteral("pid"), pid > 0 ? QJsonValue(pid) : QJsonValue()},
            {QStringLiteral("healthy"), healthy},
        };
        if (healthy) {
            server.insert(QStringLiteral("version"), health.value(QStringLiteral("version")));
            server.insert(QStringLiteral("uptime_ms"), health.value(QStringLiteral("uptimeMs")));
        } else if (!serverError.isEmpty()) {
            server.insert(QStringLiteral("error"), serverError);
        }
        QJsonObject mcp{{QStringLiteral("url"), c.mcpUrl()}, {QStringLiteral("reachable"), mcpReachable}};
        if (!mcpReachable)
            mcp.insert(QStringLiteral("error"), mcpError);
        QJsonObject tunnelOut{
            {QStringLiteral("enabled"), tunnelEnabled},
            {QStringLiteral("state"), tunnelState},
            {QStringLiteral("healthy"), tunnelOk},
        };
        if (healthy && tunnelEnabled) {
            // /healthz speaks camelCase; every --json output of the CLI speaks snake_case.
            const QList<QPair<const char *, const char *>> fields{
                {"detail", "detail"}, {"lastError", "last_error"}, {"readiness", "readiness"}, {"restarts", "restarts"},
                {"healthUrl", "health_url"}, {"pid", "pid"}, {"nextRestartInMs", "next_restart_in_ms"},
                {"lastPollAgeS", "last_poll_age_s"}};
            for (const auto &[from, to] : fields)
                tunnelOut.insert(QLatin1String(to), tunnel.value(QLatin1String(from)));
        }
        ctx.printJson(QJsonObject{
            {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
            {QStringLiteral("healthy"), problem.isEmpty()},
            {QStringLiteral("server"), server},
            {QStringLiteral("mcp"), mcp},
            {QStringLiteral("tunnel"), tunnelOut},
            {QStringLiteral("sandboxes"), QJsonObject{
                 {QStringLiteral("active"), active >= 0 ? QJsonValue(active) : QJsonValue()},
                 {QStringLiteral("limit"), sandboxLimitJson(c.maxActiveSandboxes)},
                 {QStringLiteral("warm"), warm >= 0 ? QJsonValue(warm) : QJsonValue()},
                 {QStringLiteral("warm_target"), c.warmSandboxes},
             }},
            {QStringLiteral("pending_approvals"), pending >= 0 ? QJsonValue(pending) : QJsonValue()},
            {QStringLiteral("data_root"), dataRoot},
            {QStringLiteral("host_workspaces"), QJsonObject{
                 {QStringLiteral("enabled"), !c.allowedHostRoots.isEmpty()},
                 {QStringLiteral("roots"), QJsonArray::fromStringList(c.allowedHostRoots)},
                 {QStringLiteral("missing_roots"), QJsonArray::fromStringList(missingRoots)},
             }},
            {QStringLiteral("expose_allow_lan"), c.exposeAllowLan},
            {QStringLiteral("config"), QJsonObject{
                 {QStringLiteral("host"), c.host},
                 {QStringLiteral("port"), c.port},
                 {QStringLiteral("database_path"), c.databasePath},
                 {QStringLiteral("tunnel_client"), c.tunnelClient},
                 {QStringLiteral("secret_dir"), c.secretDir},
                 {QStringLiteral("sbx"), c.sbxPath},
             }},
        });
    } else {
        QString text;
        text += QStringLiteral("chat2sbx %1\n").arg(QStringLiteral(CHAT2SBX_VERSION));
        if (healthy)
            text += QStringLiteral("server:     running (PID %1), healthy, up %2 s\n")
                        .arg(pid > 0 ? QString::number(pid) : QStringLiteral("?"))
                        .arg(health.value(QStringLiteral("uptimeMs")).toDouble() / 1000.0, 0, 'f', 0);
        else if (pid > 0)
            text += QStringLiteral("server:     PID %1 running but not answering: %2\n").arg(pid).arg(serverError);
        else
            text += QStringLiteral("server:     not running\n");
        text += QStringLiteral("endpoint:   %1 (%2)\n").arg(c.mcpUrl(), mcpReachable ? QStringLiteral("reachable")
                                                                                    : QStringLiteral("not reachable: ") + mcpError);
        text += QStringLiteral("bind:       %1:%2%3\n").arg(c.host).arg(c.port)
                    .arg(c.isLoopbackBind() ? QStringLiteral(" (loopback)") : QStringLiteral(" (NOT loopback: bearer token required)"));
        if (!tunnelEnabled) {
            text += QStringLiteral("tunnel:     disabled (local-only)\n");
        } else if (!healthy) {
            text += QStringLiteral("tunnel:     enabled, state unknown (server not running)\n");
        } else {
            QString line = QStringLiteral("tunnel:     %1").arg(tunnelState);
            const int restarts = tunnel.value(QStringLiteral("restarts")).toInt();
            if (restarts > 0)
                line += QStringLiteral(", %1 restart%2").arg(restarts).arg(restarts == 1 ? "" : "s");
            if (tunnel.value(QStringLiteral("pid")).toInteger() > 0)
                line += QStringLiteral(", tunnel-client PID %1").arg(tunnel.value(QStringLiteral("pid")).toInteger());
            if (!tunnel.value(QStringLiteral("healthUrl")).toString().isEmpty())
                line += QStringLiteral(", health %1").arg(tunnel.value(QStringLiteral("healthUrl")).toString());
            text += line + QLatin1Char('\n');
            if (tunnel.value(QStringLiteral("lastPollAgeS")).isDouble())
                text += QStringLiteral("tunnel:     last successful poll %1 s ago\n").arg(tunnel.value(QStringLiteral("lastPollAgeS")).toInteger());
            if (!tunnelDetail.isEmpty())
                text += QStringLiteral("tunnel why: %1\n").arg(tunnelDetail);
            if (!tunnelError.isEmpty() && !tunnelDetail.contains(tunnelError))
                text += QStringLiteral("tunnel err: %1\n").arg(tunnelError);
        }
        text += QStringLiteral("sandboxes:  %1 active / limit %2; %3 of %4 warm (ready to hand over)\n")
                    .arg(active >= 0 ? QString::number(active) : QStringLiteral("?"), limit,
                         warm >= 0 ? QString::number(warm) : QStringLiteral("?"))
                    .arg(c.warmSandboxes);
        text += QStringLiteral("approvals:  %1 pending\n").arg(pending >= 0 ? QString::number(pending) : QStringLiteral("?"));
        if (c.allowedHostRoots.isEmpty())
            text += QStringLiteral("host workspaces: off (set CHAT2SBX_ALLOWED_HOST_ROOTS or allowedHostRoots to allow folders)\n");
        else
            text += QStringLiteral("host workspaces: on, roots %1\n").arg(c.allowedHostRoots.join(QStringLiteral(", ")));
        for (const QString &root : missingRoots)
            text += QStringLiteral("warning: allowed root %1 does not exist\n").arg(root);
        text += QStringLiteral("expose:     %1\n").arg(c.exposeAllowLan ? QStringLiteral("LAN allowed (exposeAllowLan)")
                                                                        : QStringLiteral("127.0.0.1 only"));
        text += QStringLiteral("data root:  %1\n").arg(dataRoot);
        ctx.print(text);
    }
    if (!problem.isEmpty())
        return ctx.fail(problem);
    return 0;
}

const bool registered = registerCommand({QStringLiteral("status"), QStringLiteral("status [--json]"),
                                         QStringLiteral("Show service, MCP and tunnel readiness"), false, runStatus});

} // namespace
} // namespace chat2sbx::app
