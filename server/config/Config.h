#pragma once

#include <QString>
#include <QStringList>

namespace chat2sbx {

// The effective configuration: built-in defaults < <data root>/config.json < CHAT2SBX_* environment.
// Read once when a command starts; see ConfigLoader.
struct Config {
    QString host = QStringLiteral("127.0.0.1");
    quint16 port = 18788;
    QString dataRoot;                 // ~/.chat2sbx
    QString stateDir;                 // <dataRoot>/state
    QString workspaceRoot;            // <dataRoot>/workspaces
    QString databasePath;             // <stateDir>/chat2sbx.sqlite
    QStringList allowedHostRoots;     // empty: host workspaces disabled
    bool enableTunnel = true;
    QString tunnelClient;             // ~/.local/bin/tunnel-client
    QString secretDir;                // ~/.secrets/tunnel-client
    int maxActiveSandboxes = 0;       // 0: unlimited
    int warmSandboxes = 1;            // sandboxes created ahead of need (WarmPool); 0: none
    QString sbxPath = QStringLiteral("sbx");

    // Beyond the README table; all overridable the same way.
    int sessionIdleSeconds = 3600;            // MCP session expiry
    qint64 sandboxIdleSeconds = 24 * 3600;    // sandbox idle expiry
    int workspaceRetentionDays = 30;          // managed workspaces without a sandbox
    QStringList allowedOrigins;               // extra Origin values accepted besides loopback ones
    QStringList allowedHosts;                 // extra Host values accepted besides loopback ones
    QString localTokenHeader = QStringLiteral("X-Local-Token");
    bool requireLocalToken = false;           // check the shared-secret header on /mcp
    QString bearerToken;                      // required for a non-loopback bind
    QString templateName = QStringLiteral("chat2sbx-shell");
    int tunnelBackoffMs = 1000;               // first tunnel-client restart delay (doubles up to 60 s); for tests
    int tunnelStopGraceMs = 5000;             // SIGTERM -> SIGKILL grace when stopping tunnel-client

    QString configFilePath;                   // where config.json was looked for
    QString agentsFilePath() const { return dataRoot + QStringLiteral("/AGENTS.md"); }
    QString pidFilePath() const { return stateDir + QStringLiteral("/chat2sbx.pid"); }
    QString trashDir() const { return dataRoot + QStringLiteral("/trash"); }
    QString mcpUrl() const;
    QString templateRef() const;              // "<templateName>:<version>"
    bool isLoopbackBind() const;
};

} // namespace chat2sbx
