#pragma once

#include "sandbox/sbx/SbxStatus.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace chat2sbx {

struct Config;

// One picture of chat2sbx's health: what `/healthz`, `chat2sbx status` (text and --json) and the tray
// show. Pure data; StatusReportBuilder.h fills it from the running services, from a /healthz answer
// or from the database and the configuration.
struct StatusReport {
    // The server process.
    bool serverRunning = false;   // a live PID file or an answering /healthz
    qint64 pid = 0;               // 0: unknown
    bool healthy = false;         // /healthz answered with our name
    QString serverError;          // why not healthy (when it is not)
    QString version;              // the answering server's version (empty: unknown)
    qint64 uptimeMs = -1;         // -1: unknown

    // The MCP endpoint.
    QString mcpUrl;
    bool mcpReachable = false;
    QString mcpError;

    // The Secure MCP Tunnel: `state` is disabled, unknown or TunnelSupervisor's state name;
    // `tunnel` is TunnelSupervisor::toJson() of the running server (camelCase, may be empty).
    bool tunnelEnabled = false;
    QString tunnelState;
    QJsonObject tunnel;

    // Counts; -1: unknown (no server answered and the database could not be read).
    qint64 activeSandboxes = -1;
    qint64 warmSandboxes = -1;
    // Of those, in Docker's cloud (shown apart when there are any; -1: unknown).
    qint64 cloudActiveSandboxes = -1;
    qint64 cloudWarmSandboxes = -1;
    qint64 pendingApprovals = -1;
    int maxActiveSandboxes = 0;   // 0: unlimited
    // Sandboxes sbx's last listing left out (kept, they come back by themselves) and what is known of why.
    qint64 unreachableSandboxes = -1;
    QString unreachableWhy;
    int warmTarget = 0;

    // Docker Sandboxes: the running server's cached check, or the CLI's own when no server gave one.
    SbxStatus sbx;
    // Docker's cloud sandboxes (an optional setup: off unless cloudSandboxes): `sbx --cloud diagnose`
    // asked when on. cloudState: "off", "ready", "not usable" (cloudDetail: what sbx said).
    bool cloudEnabled = false;
    QString cloudState = QStringLiteral("off");
    QString cloudDetail;
    QString defaultPlacement = QStringLiteral("local");   // where a create without placement goes

    // Whether ChatGPT has the tool list served now (ChatGptToolList): "unknown" (no server answered),
    // "never_fetched", "current" or "changed"; when it fetched the list it has (0: never/unknown).
    QString chatGptToolList = QStringLiteral("unknown");
    qint64 chatGptFetchedAtMs = 0;
    // ChatGPT went quiet after a long conversation while the tunnel is healthy (ChatGptSilence); empty: not.
    QString chatGptQuiet;

    // The configuration in effect.
    QString dataRoot;
    QString host;
    int port = 0;
    bool loopbackBind = true;
    QString databasePath;
    QString tunnelClient;
    QString secretDir;
    QString sbxPath;
    QStringList allowedHostRoots;
    QStringList missingHostRoots;   // allowed roots that are not existing directories
    bool exposeAllowLan = false;

    bool tunnelHealthy() const;
    // What is wrong with something enabled, one short sentence each; empty: everything is healthy.
    QStringList problems() const;
    // cloudEnabled but Docker's cloud does not answer as it must: what and what to do; else empty.
    QString cloudProblem() const;
    // What the user should do although nothing is broken, one sentence each (a changed tool list).
    QStringList notices() const;
    // chatGptToolList in words, with the step to take when it changed.
    QString chatGptToolListText() const;

    // `chat2sbx status --json` (snake_case, like every --json output of the CLI).
    QJsonObject toCliJson() const;
    // `chat2sbx status` as text.
    QString toText() const;
    // GET /healthz: the full answer (camelCase) and the answer without the local token.
    QJsonObject toHealthJson() const;
    QJsonObject toBareHealthJson() const;
};

} // namespace chat2sbx
