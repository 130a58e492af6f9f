#pragma once

// What the tray shows, as plain rows, and the three adapters the widgets read them from. The widgets
// only know these classes; the Service* implementations (ServiceModels.h) bind them to the server's
// services and their signals, and tests can substitute their own.

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx::ui {

// A request that waits for the user: a host folder for a workspace (apr_…), or a file a sandbox
// wants to save on this computer (exp_…, when the settings make exports wait).
struct ApprovalRow {
    QString id;             // apr_..., exp_... or pub_...
    QString path;           // folder: canonical host path; export: the file's name; port: "port 3000 of <sandbox>"
    QString mode;           // folder: "clone" or "direct"; export: "export"; a cloud port: "public_port"
    qint64 requestedAtMs = 0;
    QString client{};       // the MCP client that asked (may be empty)
    QString reason{};       // folder: the agent's reason; export: why it waits (which setting)
    QString detail{};       // export: "12.0 MiB from myrepo-3f9c, to ~/Downloads/chat2sbx"

    bool isExport() const { return mode == QLatin1String("export"); }
    bool isPublicPort() const { return mode == QLatin1String("public_port"); }
};

// One exposed port: shown as a link; LAN-wide ones (not bound to loopback) are marked.
struct PortLink {
    int sandboxPort = 0;
    QString hostIp;
    int hostPort = 0;
    QString url;
    bool lanWide = false;
    bool isPublic = false;   // a cloud sandbox's port: a public HTTPS URL anyone can open
};

// A saved state of a sandbox (sandbox_checkpoint) the user may restore, fork or delete.
struct CheckpointRow {
    QString id;             // ckp_...
    QString label;          // the agent's words; may be empty
    QString state;          // saving or ready
    qint64 createdAtMs = 0;
    qint64 sizeBytes = 0;   // its workspace copy
    bool pinned = false;    // never evicted by the budget
    bool inCloud = false;   // a template in Docker's cloud (restored and forked there only)
    bool keepsMemory = false;   // memory and processes saved too
};

struct SandboxRow {
    QString id;             // sbx_...
    QString workspace;      // display name (or id) of its workspace
    QString workspaceMode;  // managed, clone or direct (empty: unknown)
    QString hostPath;       // the host folder of a clone or direct workspace
    QList<PortLink> portLinks;
    int runningCommands = 0;   // bash commands still running in it
    QString state;          // creating, running, stopped (asleep), destroying, failed
    qint64 sleptAtMs = 0;   // when its VM last stopped (0: never)
    qint64 wokeAtMs = 0;    // when a tool call last woke it (0: never)
    QString memory;         // empty: sbx default
    qint64 idleDeadlineMs = 0;   // 0: none
    QStringList ports;      // "8080 → 127.0.0.1:49152"
    QString reason;         // why it failed, if it did
    QString createdByConversation = {};   // the ChatGPT conversation that made it, shortened; empty: none known
    QString lastConversation = {};        // the one that used it last, shortened
    QString name = {};      // the short name people read (sandboxShortName); the id on hover
    QList<CheckpointRow> checkpoints = {};   // oldest first
    QString forkedFrom = {};     // a fork: the short name of the sandbox it was made from
    QString restoringTo = {};    // a restore under way: the checkpoint it goes back to
    QString movingTo = {};       // a move under way: "cloud" or "local"
    bool canMoveToCloud = false; // cloud sandboxes are on and its workspace can go there (not a direct folder)
    QString cloudSize = {};      // in Docker's cloud: its size (empty: on this computer)
    qint64 expiresAtMs = 0;      // in the cloud: when its time-to-live ends (0: not known)
};

// One step of the first-run guide (server: runtime/SetupChecklist, the same list `chat2sbx status` prints).
struct ChecklistRow {
    QString step;      // "sbx", "login", "template", "chatgpt", "folders"
    QString state;     // "done", "to do", "blocked", "checking", "optional"
    QString title;
    QString detail;
    QString command;   // to copy; may be empty
};

struct StatusInfo {
    enum class Server { Stopped, Starting, Running, Stopping, Failed };
    // NotSetUp: on, but no tunnel id and key were ever given (an optional step of the guide).
    enum class Tunnel { Disabled, NotSetUp, Stopped, Starting, Connected, Unauthorized, Failed };
    Server server = Server::Stopped;
    QString serverError;
    QString endpointUrl;
    Tunnel tunnel = Tunnel::Disabled;
    QString tunnelError;    // what is wrong and what to do (unauthorized, failed)
    int activeSandboxes = 0;
    QString sandboxLimit;   // the number, or "unlimited" (sandboxLimitText)
    int warmSandboxes = 0;  // made ahead of need, ready to hand over
    int cloudActiveSandboxes = 0;   // of the active ones, in Docker's cloud
    int cloudWarmSandboxes = 0;     // ready in the cloud
    QString version;
    QString sbx;            // "sbx v0.47.0, signed in, template chat2sbx-shell:1.0 present" (or "checking sbx …")
    QString sbxProblem;     // what is wrong with sbx and the command that fixes it; empty: ready
    QString chatGptNotice = {};   // the tool list changed since ChatGPT fetched it: how to refresh; empty: nothing to do
    QList<ChecklistRow> checklist = {};   // the first-run guide, in order
    bool setupNeeded = false;             // a step the product needs is not done: the popup leads with the guide
};

QString tunnelStateText(StatusInfo::Tunnel tunnel);
QString serverStateText(StatusInfo::Server server);

using ResultCallback = std::function<void(bool ok, const QString &error)>;

// Pending host-path approvals.
class ApprovalsModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QList<ApprovalRow> pending() const = 0;
    // Decides one approval; `error` is one readable sentence when it returns false.
    virtual bool approve(const QString &id, QString &error) = 0;
    virtual bool reject(const QString &id, QString &error) = 0;

signals:
    void changed();
    // A new approval arrived (for the desktop notification).
    void requested(const chat2sbx::ui::ApprovalRow &row);
};

// Sandboxes that are not destroyed.
class SandboxesModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QList<SandboxRow> sandboxes() const = 0;
    // Asynchronous; `done` runs once, later, on the GUI thread.
    virtual void destroy(const QString &id, ResultCallback done) = 0;
    // The sandbox back at one of its checkpoints (what is there now is checkpointed first).
    virtual void restore(const QString &sandboxId, const QString &checkpointId, ResultCallback done) = 0;
    // A new sandbox from the checkpoint; `done`'s text names it.
    virtual void fork(const QString &checkpointId, ResultCallback done) = 0;
    virtual void deleteCheckpoint(const QString &checkpointId, ResultCallback done) = 0;
    // Pause: its VM stops, its files are kept, the next tool call wakes it. Refused while commands run
    // unless `endRunningCommands`: `running` then names them (for the confirmation), else is empty.
    using PauseCallback = std::function<void(bool ok, const QString &error, const QStringList &running)>;
    virtual void pause(const QString &id, bool endRunningCommands, PauseCallback done) = 0;
    // A running cloud sandbox's time-to-live, longer; `done`'s text says until when.
    virtual void extend(const QString &id, ResultCallback done) = 0;
    // A cloud sandbox's public port off the internet.
    virtual void unpublish(const QString &id, int port, ResultCallback done) = 0;
    // "Continue in the cloud" / "Bring back to this computer" (sandbox_move); `done` once it moved.
    virtual void move(const QString &id, bool toCloud, bool endRunningCommands, ResultCallback done) = 0;

signals:
    void changed();
    // A running cloud sandbox ends at `expiresAtMs` in a few minutes, its VM and files with it;
    // `atCeiling`: it cannot be extended (24 h from its creation).
    void cloudExpiryNear(const QString &id, const QString &name, qint64 expiresAtMs, bool atCeiling);
};

// An agent's pending request for network access from one sandbox.
struct NetworkRequestRow {
    QString id;             // net_...
    QString sandboxId;
    QStringList hosts;
    QString reason{};
    QString client{};
    qint64 requestedAtMs = 0;
    QString sandboxName = {};   // sandboxShortName; empty: show the id
};

// Hosts a sandbox's network policy blocked lately (from sbx's policy log).
struct BlockedHostsRow {
    QString sandboxId;
    QStringList hosts;
    QString sandboxName = {};   // sandboxShortName; empty: show the id
};

// A global ("always") allow rule chat2sbx added.
struct NetworkRuleRow {
    qint64 id = 0;
    QString host;
};

// Network access: agents' requests, blocked hosts per sandbox, the "always" rules.
class NetworkModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QList<NetworkRequestRow> pending() const = 0;
    virtual QList<BlockedHostsRow> blocked() const = 0;
    virtual QList<NetworkRuleRow> alwaysRules() const = 0;
    // Asks sbx again for the blocked hosts; changed() follows when they arrive.
    virtual void refreshBlocked() = 0;
    // Asynchronous (sbx runs); `done` runs once, later.
    virtual void allow(const QString &id, bool always, ResultCallback done) = 0;
    virtual bool deny(const QString &id, QString &error) = 0;
    virtual void allowBlocked(const QString &sandboxId, const QString &host, ResultCallback done) = 0;
    virtual void removeRule(qint64 id, ResultCallback done) = 0;

signals:
    void changed();
    void requested(const chat2sbx::ui::NetworkRequestRow &row);
};

// Server, endpoint and tunnel state.
class StatusModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual StatusInfo status() const = 0;
    // The guide's Prepare (the template part of `chat2sbx setup`): `line` gets its progress as it
    // comes, `done` runs once. False when it cannot start (one runs already).
    virtual bool prepare(std::function<void(const QString &line)> line, ResultCallback done)
    {
        Q_UNUSED(line);
        done(false, QStringLiteral("Prepare is not available here: run `chat2sbx setup` in a terminal"));
        return false;
    }
    virtual void cancelPrepare() {}
    // The guide's tunnel files: the tunnel id file and the key file, in either order, stored for the
    // server (the OS keychain, else the secret directory) and the tunnel started again with them.
    // `done(ok, message, tunnelId)` runs once: what was stored where, or why nothing was.
    using TunnelFilesDone = std::function<void(bool ok, const QString &message, const QString &tunnelId)>;
    virtual void importTunnelFiles(const QString &fileA, const QString &fileB, TunnelFilesDone done)
    {
        Q_UNUSED(fileA);
        Q_UNUSED(fileB);
        done(false, QStringLiteral("not available here: put the files in the secret directory or run `chat2sbx tunnel "
                                   "import`"), QString());
    }
    // The guide's "Add a folder…": agents may ask for folders below `dir` from now on (saved in
    // config.json). `message` says what happened either way.
    virtual bool addHostFolder(const QString &dir, QString &message)
    {
        Q_UNUSED(dir);
        message = QStringLiteral("not available here: add the folder to allowedHostRoots in config.json");
        return false;
    }
    // The guide's "Choose sbx…": the program is checked (`version`), saved in config.json and used
    // from now on. `done` runs once with what happened.
    virtual void useSbxProgram(const QString &path, ResultCallback done)
    {
        Q_UNUSED(path);
        done(false, QStringLiteral("not available here: set sbx in config.json or CHAT2SBX_SBX"));
    }
    // Runs the checks again (the guide's "Check again"); changed() follows.
    virtual void checkAgain() {}

signals:
    void changed();
};

} // namespace chat2sbx::ui
