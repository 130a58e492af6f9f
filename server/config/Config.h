#pragma once

#include "config/FileHostPatterns.h"

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
    // Docker's cloud sandboxes (`sbx --cloud`, billed per second while they run): off unless turned
    // on; where a sandbox_create without a placement goes (local, cloud, or auto: the cloud when local
    // sbx is not usable here or the local limit is reached); how many may be active, how large, and
    // the time-to-live they are made with (seconds, at most 24 h).
    bool cloudSandboxes = false;
    QString defaultPlacement = QStringLiteral("local");
    int cloudMaxSandboxes = 3;
    QString cloudMaxSize = QStringLiteral("small");
    qint64 cloudDefaultTtlSeconds = 3600;
    int cloudWarmSandboxes = 0;            // cloud sandboxes made ahead of need (CloudWarmPool; billed while they wait)
    qint64 cloudWarnBeforeSeconds = 600;   // the user hears of a cloud sandbox's end this long before it
    // Free space a move from the cloud to this computer needs in the temporary folder: sbx stages the
    // sandbox's layers there, "up to 32 GiB" (reference/sbx-cloud.md §6); checked before it starts.
    int moveTempSpaceGiB = 32;
    QString sbxPath = QStringLiteral("sbx");

    // Beyond the README table; all overridable the same way.
    int sessionIdleSeconds = 3600;            // MCP session expiry
    qint64 sandboxIdleSeconds = 24 * 3600;    // sandbox idle expiry
    qint64 sandboxSleepSeconds = 1800;        // an idle sandbox's VM is stopped (files kept) after this
    // The deadline of sbx's short commands (ls, version, stop, exec of a step) and how often chat2sbx
    // lists sandboxes again while sbx is unavailable or leaves one out of `sbx ls`.
    int sbxTimeoutSeconds = 30;
    int sbxRecheckSeconds = 30;
    int workspaceRetentionDays = 30;          // managed workspaces without a sandbox
    QStringList allowedOrigins;               // extra Origin values accepted besides loopback ones
    QStringList allowedHosts;                 // extra Host values accepted besides loopback ones
    QString localTokenHeader = QStringLiteral("X-Local-Token");
    bool requireLocalToken = false;           // check the shared-secret header on /mcp
    QString bearerToken;                      // required for a non-loopback bind
    QString templateName = QStringLiteral("chat2sbx-shell");
    int tunnelBackoffMs = 1000;               // first tunnel-client restart delay (doubles up to 60 s); for tests
    int tunnelStopGraceMs = 15000;            // SIGTERM -> SIGKILL grace: the client's own stop timeout is 15 s
    int tunnelReadyTimeoutMs = 30000;         // tunnel-client not ready (/readyz) by then: restarted
    QStringList sbxEnv;                       // extra variables passed to sbx (NAME or PREFIX*); CHAT2SBX_* never
    QStringList tunnelEnv;                    // extra variables passed to tunnel-client (NAME or PREFIX*), e.g. for a proxy
    // import_file downloads only over https from these hosts (FileHostPatterns: "host" means port 443,
    // "host:port" that port, "*.domain" any subdomain, "prefix*.domain" one label starting so), at
    // most this many MiB.
    QStringList importFileHosts = FileHostPatterns::defaults();
    int importFileMaxMiB = 64;
    QString testImportCaFile;                 // tests only: an extra CA certificate import_file trusts
    // export_file writes files from sandboxes here (made on first use; default ~/Downloads/chat2sbx),
    // at most this many MiB a file and this many MiB a sandbox over the server's run.
    QString exportDir;
    int exportMaxFileMiB = 512;
    int exportMaxSandboxMiB = 2048;
    // Each export waits for the user's approval (tray, notification or `chat2sbx approval approve`)
    // before it is copied; an export over a budget waits too while exportOverBudget is "ask" (the
    // default), and is refused with "refuse".
    bool exportNeedsApproval = false;
    QString exportOverBudget = QStringLiteral("ask");
    bool exposeAllowLan = false;              // sandbox_expose may bind a non-loopback host address
    bool toolCards = true;                    // tools point hosts at the tool card (docs/TOOL_CARDS.md)
    int auditRetentionDays = 30;              // activity log rows older than this are pruned
    int auditMaxRows = 100000;                // and all but the newest this many
    // Checkpoints kept over all sandboxes (sandbox_checkpoint): past either, a new checkpoint evicts
    // the oldest that are not pinned, and says which. The bytes: each checkpoint's template (as
    // `sbx template ls` sizes it) and its workspace copy or clone state.
    int checkpointMaxCount = 20;
    int checkpointMaxGiB = 20;
    // Checkpoints of cloud sandboxes (templates in Docker's cloud, its own storage quota), apart.
    int cloudCheckpointMaxCount = 10;
    int cloudCheckpointMaxGiB = 100;
    // Idle expiry checkpoints a scratch sandbox (pinned: it outlives the sandbox) before removing it;
    // sandbox_get lists it and sandbox_fork brings the sandbox back.
    bool checkpointBeforeExpiry = false;
    // sandbox_create/sandbox_destroy answer at the latest after this, even while sbx is still at work
    // (sbx itself may take minutes, or hang); the work goes on in the background. For tests.
    int sandboxAnswerWithinMs = 45000;

    QString configFilePath;                   // where config.json was looked for
    QString agentsFilePath() const { return dataRoot + QStringLiteral("/AGENTS.md"); }
    QString pidFilePath() const { return stateDir + QStringLiteral("/chat2sbx.pid"); }
    // The running server's control channel (runtime/ControlChannel): CLI verbs that change state.
    QString controlSocketPath() const { return stateDir + QStringLiteral("/control.sock"); }
    QString trashDir() const { return dataRoot + QStringLiteral("/trash"); }
    QString mcpUrl() const;
    QString templateRef() const;              // "<templateName>:<version>"
    bool isLoopbackBind() const;
};

} // namespace chat2sbx
