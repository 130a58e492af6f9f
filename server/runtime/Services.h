#pragma once

#include "mcp/ToolRegistry.h"

#include <QString>

#include <memory>

namespace chat2sbx {

struct Config;
class ActivityMonitor;
class ApprovalService;
class BashSessions;
class ChangesService;
class CheckpointService;
class CloneCheckpointWork;
class CloudCloneSeed;
class CloudWarmPool;
class ChannelPool;
class Clock;
class Database;
class ExportApprovals;
class PublicPorts;
class FileExport;
class HostGit;
class NetworkAccess;
class SandboxMover;
class SandboxService;
class SandboxSleep;
class SbxDriver;
class SbxHealth;
class TunnelSupervisor;
class WarmPool;
class WorkspaceRemoval;
class WorkspaceRetention;
class WorkspaceService;

// The composition root: builds every long-lived service and wires them to each other (attachers,
// guards, signals), and for the server registers the tool families. It starts nothing; Controller
// owns the start-up and shutdown order of the server. `config` and `clock` must outlive it. Members
// are destroyed in reverse order of declaration, so a service is declared after everything it keeps
// a reference to.
struct Services {
    enum class Profile {
        // `chat2sbx serve` and the tray: every service, the tool families registered.
        Server,
        // A CLI command on the shared database, no server needed: workspaces, approvals, sandboxes with
        // control channels of their own (owner cli-<pid>, beside the server's), changes (the destroy
        // guard), workspace removal. No tools, no tunnel, no reconciliation, no timers; a server
        // notices what a command changed through SQLite.
        Cli,
        // Cli and NetworkAccess, for the `network` commands only: its sweep of a destroyed sandbox's
        // rules is the server's job, not that of `sandbox destroy`.
        CliNetwork,
    };

    Services(const Config &config, Clock &clock, Profile profile = Profile::Server);
    ~Services();
    Services(const Services &) = delete;
    Services &operator=(const Services &) = delete;

    // Creates the data root (owner only) and opens the database.
    bool openDatabase(QString &error);

    const Profile profile;
    const Config &config;
    std::unique_ptr<Database> db;   // opened by openDatabase() (Controller::start() for the server)
    ToolRegistry tools;
    std::unique_ptr<SbxDriver> sbx;
    std::unique_ptr<WorkspaceService> workspaces;
    std::unique_ptr<ChannelPool> channels;   // outlives sandboxes
    std::unique_ptr<BashSessions> bashSessions;
    std::unique_ptr<ExportApprovals> exportApprovals;   // exports that wait for the user; outlives fileExport
    std::unique_ptr<PublicPorts> publicPorts;           // cloud ports on the internet, with the user's approval
    std::unique_ptr<FileExport> fileExport;   // export_file and `sandbox export`: files to the user's export folder
    std::unique_ptr<HostGit> hostGit;        // these three outlive sandboxes too
    std::unique_ptr<ChangesService> changes;
    std::unique_ptr<CloneCheckpointWork> cloneWork;   // outlives checkpoints
    std::unique_ptr<CloudCloneSeed> cloudClones;      // outlives sandboxes
    std::unique_ptr<WorkspaceRemoval> removal;
    std::unique_ptr<WarmPool> warm;          // sandboxes made ahead of need; outlives sandboxes
    std::unique_ptr<CloudWarmPool> cloudWarm;   // cloud ones (cloudWarmSandboxes > 0 only); outlives sandboxes
    std::unique_ptr<SandboxService> sandboxes;
    std::unique_ptr<CheckpointService> checkpoints;   // sandbox_checkpoint(s) and the CLI's checkpoint verbs
    std::unique_ptr<SandboxMover> mover;   // sandbox_move and `chat2sbx sandbox move`
    std::unique_ptr<SbxHealth> sbxHealth;
    std::unique_ptr<ApprovalService> approvals;
    std::unique_ptr<NetworkAccess> network;   // network requests and the sbx rules chat2sbx added
    std::unique_ptr<WorkspaceRetention> retention;
    std::unique_ptr<ActivityMonitor> activity;
    std::unique_ptr<SandboxSleep> sleep;
    std::unique_ptr<TunnelSupervisor> tunnel;   // the server's, from construction: the endpoint gives it the local token
};

} // namespace chat2sbx
