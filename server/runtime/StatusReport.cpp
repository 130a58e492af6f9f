#include "runtime/StatusReport.h"

#include "runtime/ChatGptToolList.h"
#include "runtime/SetupChecklist.h"
#include "sandbox/present/SandboxPresenter.h"

#include <QDateTime>
#include <QJsonArray>

namespace chat2sbx {
namespace {

QJsonValue countOrNull(qint64 n)
{
    return n >= 0 ? QJsonValue(n) : QJsonValue();
}

QString countOrUnknown(qint64 n)
{
    return n >= 0 ? QString::number(n) : QStringLiteral("?");
}

QString isoTimeUtc(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODate);
}

} // namespace

bool StatusReport::tunnelHealthy() const
{
    // Connected: the tunnel service answers the client's polls, so ChatGPT can reach us.
    return !tunnelEnabled || tunnelState == QLatin1String("connected");
}

QString StatusReport::cloudProblem() const
{
    if (!cloudEnabled || cloudState == QLatin1String("ready") || cloudState == QLatin1String("checking"))
        return {};
    return QStringLiteral("cloud sandboxes are on but Docker's cloud is not usable: %1 (activate a Docker Agentic Platform "
                          "subscription for the account `sbx login` uses; `sbx --cloud diagnose` says which check fails)")
        .arg(cloudDetail.isEmpty() ? cloudState : cloudDetail);
}

QStringList StatusReport::problems() const
{
    QStringList out;
    const QString sbxProblem = sbx.checked() ? sbx.currentProblem() : QString();
    if (!healthy) {
        out << (pid > 0 ? QStringLiteral("server (PID %1) is not healthy: %2").arg(pid).arg(serverError)
                        : QStringLiteral("server is not running"));
        if (!sbxProblem.isEmpty())
            out << sbxProblem;
        if (!cloudProblem().isEmpty())
            out << cloudProblem();
        return out;
    }
    if (!mcpReachable)
        out << QStringLiteral("MCP endpoint %1 is not reachable: %2").arg(mcpUrl, mcpError);
    if (!tunnelHealthy()) {
        const QString detail = tunnel.value(QStringLiteral("detail")).toString();
        const QString lastError = tunnel.value(QStringLiteral("lastError")).toString();
        QString why = !detail.isEmpty() ? detail : !lastError.isEmpty() ? lastError
                                                                        : tunnel.value(QStringLiteral("readiness")).toString();
        // A client that keeps failing is "starting" again most of the time: say why it stopped last.
        if (!detail.isEmpty() && !lastError.isEmpty() && !detail.contains(lastError))
            why += QStringLiteral(" (last error: %1)").arg(lastError);
        out << (why.isEmpty() ? QStringLiteral("tunnel is %1").arg(tunnelState)
                              : QStringLiteral("tunnel is %1: %2").arg(tunnelState, why));
    }
    if (!sbxProblem.isEmpty())
        out << sbxProblem;
    if (!cloudProblem().isEmpty())
        out << cloudProblem();
    if (unreachableSandboxes > 0)
        out << QStringLiteral("%1 %2 unreachable: %3")
                   .arg(unreachableSandboxes)
                   .arg(unreachableSandboxes == 1 ? QStringLiteral("sandbox is") : QStringLiteral("sandboxes are"), unreachableWhy);
    return out;
}

QString StatusReport::chatGptToolListText() const
{
    const QString when = chatGptFetchedAtMs > 0 ? isoTimeUtc(chatGptFetchedAtMs).replace(QLatin1Char('T'), QLatin1Char(' ')) : QString();
    if (chatGptToolList == QLatin1String("current"))
        return QStringLiteral("has the current tool list (fetched %1 UTC)").arg(when);
    if (chatGptToolList == QLatin1String("changed"))
        return QStringLiteral("%1 (it fetched the list at %2 UTC)").arg(ChatGptToolList::refreshAdvice(), when);
    if (chatGptToolList == QLatin1String("never_fetched"))
        return QStringLiteral("no ChatGPT connector has fetched the tool list yet");
    return QStringLiteral("unknown");
}

QStringList StatusReport::notices() const
{
    QStringList out;
    if (healthy && chatGptToolList == QLatin1String("changed"))
        out << ChatGptToolList::refreshAdvice();
    if (healthy && !chatGptQuiet.isEmpty())
        out << chatGptQuiet;
    return out;
}

QJsonObject StatusReport::toCliJson() const
{
    QJsonObject server{
        {QStringLiteral("running"), serverRunning},
        {QStringLiteral("pid"), pid > 0 ? QJsonValue(pid) : QJsonValue()},
        {QStringLiteral("healthy"), healthy},
    };
    if (healthy) {
        server.insert(QStringLiteral("version"), version.isEmpty() ? QJsonValue() : QJsonValue(version));
        server.insert(QStringLiteral("uptime_ms"), countOrNull(uptimeMs));
    } else if (!serverError.isEmpty()) {
        server.insert(QStringLiteral("error"), serverError);
    }
    QJsonObject mcp{{QStringLiteral("url"), mcpUrl}, {QStringLiteral("reachable"), mcpReachable}};
    if (!mcpReachable)
        mcp.insert(QStringLiteral("error"), mcpError);
    QJsonObject tunnelOut{
        {QStringLiteral("enabled"), tunnelEnabled},
        {QStringLiteral("state"), tunnelState},
        {QStringLiteral("healthy"), tunnelHealthy()},
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
    return QJsonObject{
        {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
        {QStringLiteral("healthy"), problems().isEmpty()},
        {QStringLiteral("server"), server},
        {QStringLiteral("mcp"), mcp},
        {QStringLiteral("tunnel"), tunnelOut},
        {QStringLiteral("sbx"), sbx.toJson(false)},
        {QStringLiteral("cloud"), QJsonObject{{QStringLiteral("enabled"), cloudEnabled},
                                              {QStringLiteral("state"), cloudState},
                                              {QStringLiteral("detail"), cloudDetail.isEmpty() ? QJsonValue() : QJsonValue(cloudDetail)}}},
        {QStringLiteral("sandboxes"), QJsonObject{
             {QStringLiteral("active"), countOrNull(activeSandboxes)},
             {QStringLiteral("limit"), sandboxLimitJson(maxActiveSandboxes)},
             {QStringLiteral("warm"), countOrNull(warmSandboxes)},
             {QStringLiteral("cloud_active"), countOrNull(cloudActiveSandboxes)},
             {QStringLiteral("cloud_warm"), countOrNull(cloudWarmSandboxes)},
             {QStringLiteral("warm_target"), warmTarget},
             {QStringLiteral("unreachable"), countOrNull(unreachableSandboxes)},
             {QStringLiteral("unreachable_why"), unreachableWhy.isEmpty() ? QJsonValue() : QJsonValue(unreachableWhy)},
         }},
        {QStringLiteral("pending_approvals"), countOrNull(pendingApprovals)},
        {QStringLiteral("chatgpt"), QJsonObject{
             {QStringLiteral("tool_list"), chatGptToolList},
             {QStringLiteral("fetched_at"), chatGptFetchedAtMs > 0 ? QJsonValue(isoTimeUtc(chatGptFetchedAtMs)) : QJsonValue()},
             {QStringLiteral("action"), notices().isEmpty() ? QJsonValue() : QJsonValue(notices().first())},
         }},
        {QStringLiteral("data_root"), dataRoot},
        {QStringLiteral("host_workspaces"), QJsonObject{
             {QStringLiteral("enabled"), !allowedHostRoots.isEmpty()},
             {QStringLiteral("roots"), QJsonArray::fromStringList(allowedHostRoots)},
             {QStringLiteral("missing_roots"), QJsonArray::fromStringList(missingHostRoots)},
         }},
        {QStringLiteral("expose_allow_lan"), exposeAllowLan},
        {QStringLiteral("config"), QJsonObject{
             {QStringLiteral("host"), host},
             {QStringLiteral("port"), port},
             {QStringLiteral("database_path"), databasePath},
             {QStringLiteral("tunnel_client"), tunnelClient},
             {QStringLiteral("secret_dir"), secretDir},
             {QStringLiteral("sbx"), sbxPath},
         }},
    };
}

QString StatusReport::toText() const
{
    QString text;
    text += QStringLiteral("chat2sbx %1\n").arg(QStringLiteral(CHAT2SBX_VERSION));
    if (healthy)
        text += QStringLiteral("server:     running (PID %1), healthy, up %2 s\n")
                    .arg(pid > 0 ? QString::number(pid) : QStringLiteral("?"))
                    .arg(double(qMax<qint64>(uptimeMs, 0)) / 1000.0, 0, 'f', 0);
    else if (pid > 0)
        text += QStringLiteral("server:     PID %1 running but not answering: %2\n").arg(pid).arg(serverError);
    else
        text += QStringLiteral("server:     not running\n");
    text += QStringLiteral("endpoint:   %1 (%2)\n").arg(mcpUrl, mcpReachable ? QStringLiteral("reachable")
                                                                          : QStringLiteral("not reachable: ") + mcpError);
    text += QStringLiteral("bind:       %1:%2%3\n").arg(host).arg(port)
                .arg(loopbackBind ? QStringLiteral(" (loopback)") : QStringLiteral(" (NOT loopback: bearer token required)"));
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
        const QString detail = tunnel.value(QStringLiteral("detail")).toString();
        const QString lastError = tunnel.value(QStringLiteral("lastError")).toString();
        if (!detail.isEmpty())
            text += QStringLiteral("tunnel why: %1\n").arg(detail);
        if (!lastError.isEmpty() && !detail.contains(lastError))
            text += QStringLiteral("tunnel err: %1\n").arg(lastError);
    }
    text += QStringLiteral("sbx:        %1\n").arg(sbx.summary());
    if (sbx.checked() && !sbx.currentProblem().isEmpty())
        text += QStringLiteral("sbx:        %1\n").arg(sbx.currentProblem());
    text += QStringLiteral("cloud:      %1\n")
                .arg(!cloudEnabled ? QStringLiteral("off (optional: cloudSandboxes in config.json; billed per second while they run)")
                     : cloudState == QLatin1String("ready") ? QStringLiteral("ready (sbx --cloud diagnose passes)")
                     : cloudState == QLatin1String("checking") ? QStringLiteral("checking (sbx --cloud diagnose)")
                                                            : QStringLiteral("not usable: %1").arg(cloudDetail));
    const QString limit = sandboxLimitText(maxActiveSandboxes);
    text += QStringLiteral("sandboxes:  %1 active%2 / limit %3; %4 of %5 warm (ready to hand over)%6\n")
                .arg(countOrUnknown(activeSandboxes),
                     cloudActiveSandboxes > 0 ? QStringLiteral(" (%1 in Docker's cloud)").arg(cloudActiveSandboxes) : QString(),
                     limit, countOrUnknown(warmSandboxes))
                .arg(warmTarget)
                .arg(cloudWarmSandboxes > 0 ? QStringLiteral(", and %1 in the cloud").arg(cloudWarmSandboxes) : QString());
    if (unreachableSandboxes > 0)
        text += QStringLiteral("unreachable: %1 (%2)\n").arg(unreachableSandboxes).arg(unreachableWhy);
    text += QStringLiteral("approvals:  %1 pending\n").arg(countOrUnknown(pendingApprovals));
    if (healthy)
        text += QStringLiteral("chatgpt:    %1\n").arg(chatGptToolListText());
    if (healthy && !chatGptQuiet.isEmpty())
        text += QStringLiteral("chatgpt:    %1\n").arg(chatGptQuiet);
    if (allowedHostRoots.isEmpty())
        text += QStringLiteral("host workspaces: off (set CHAT2SBX_ALLOWED_HOST_ROOTS or allowedHostRoots to allow folders)\n");
    else
        text += QStringLiteral("host workspaces: on, roots %1\n").arg(allowedHostRoots.join(QStringLiteral(", ")));
    for (const QString &root : missingHostRoots)
        text += QStringLiteral("warning: allowed root %1 does not exist\n").arg(root);
    text += QStringLiteral("expose:     %1\n").arg(exposeAllowLan ? QStringLiteral("LAN allowed (exposeAllowLan)")
                                                                  : QStringLiteral("127.0.0.1 only"));
    text += QStringLiteral("data root:  %1\n").arg(dataRoot);
    text += QStringLiteral("setup (the tray's first-run guide):\n") + setupChecklistText(setupChecklist(*this));
    return text;
}

QJsonObject StatusReport::toHealthJson() const
{
    QJsonObject tunnelOut = tunnel;
    tunnelOut.insert(QStringLiteral("enabled"), tunnelEnabled);
    if (!tunnelEnabled)
        tunnelOut.insert(QStringLiteral("state"), QStringLiteral("disabled"));
    return QJsonObject{
        {QStringLiteral("status"), QStringLiteral("ok")},
        {QStringLiteral("name"), QStringLiteral("chat2sbx")},
        {QStringLiteral("version"), version},
        {QStringLiteral("uptimeMs"), uptimeMs},
        {QStringLiteral("activeSandboxes"), activeSandboxes},
        {QStringLiteral("maxActiveSandboxes"), maxActiveSandboxes},
        {QStringLiteral("warmSandboxes"), warmSandboxes},
        {QStringLiteral("cloudActiveSandboxes"), cloudActiveSandboxes},
        {QStringLiteral("cloudWarmSandboxes"), cloudWarmSandboxes},
        {QStringLiteral("pendingApprovals"), pendingApprovals},
        {QStringLiteral("unreachableSandboxes"), unreachableSandboxes},
        {QStringLiteral("unreachableWhy"), unreachableWhy},
        {QStringLiteral("dataRoot"), dataRoot},
        {QStringLiteral("tunnel"), tunnelOut},
        {QStringLiteral("sbx"), sbx.toJson(true)},
        {QStringLiteral("chatgpt"), QJsonObject{{QStringLiteral("toolList"), chatGptToolList},
                                                {QStringLiteral("fetchedAtMs"), chatGptFetchedAtMs},
                                                {QStringLiteral("quiet"), chatGptQuiet}}},
    };
}

QJsonObject StatusReport::toBareHealthJson() const
{
    const QJsonObject tunnelOut{{QStringLiteral("enabled"), tunnelEnabled},
                                {QStringLiteral("state"), tunnelEnabled ? QJsonValue(tunnelState) : QJsonValue(QStringLiteral("disabled"))}};
    return QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                       {QStringLiteral("name"), QStringLiteral("chat2sbx")},
                       {QStringLiteral("tunnel"), tunnelOut}};
}

} // namespace chat2sbx
