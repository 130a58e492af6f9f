#pragma once

#include "mcp/ToolRegistry.h"

#include <memory>

namespace chat2sbx {

struct Config;
class ActivityMonitor;
class ApprovalService;
class BashSessions;
class ChangesService;
class ChannelPool;
class Clock;
class Database;
class HostGit;
class NetworkAccess;
class SandboxService;
class SandboxSleep;
class SbxDriver;
class SbxHealth;
class TunnelSupervisor;
class WarmPool;
class WorkspaceRemoval;
class WorkspaceRetention;
class WorkspaceService;

// The composition root: builds every long-lived service of the server and wires them to each other
// (attachers, guards, signals) and registers the tool families. It starts nothing; Controller owns
// the start-up and shutdown order. `config` and `clock` must outlive it. Members are destroyed in
// reverse order of declaration, so a service is declared after everything it keeps a reference to.
struct Services {
    Services(const Config &config, Clock &clock);
    ~Services();
    Services(const Services &) = delete;
    Services &operator=(const Services &) = delete;

    std::unique_ptr<Database> db;   // opened by Controller::start()
    ToolRegistry tools;
    std::unique_ptr<SbxDriver> sbx;
    std::unique_ptr<WorkspaceService> workspaces;
    std::unique_ptr<ChannelPool> channels;   // outlives sandboxes
    std::unique_ptr<BashSessions> bashSessions;
    std::unique_ptr<HostGit> hostGit;        // these three outlive sandboxes too
    std::unique_ptr<ChangesService> changes;
    std::unique_ptr<WorkspaceRemoval> removal;
    std::unique_ptr<WarmPool> warm;          // sandboxes made ahead of need; outlives sandboxes
    std::unique_ptr<SandboxService> sandboxes;
    std::unique_ptr<SbxHealth> sbxHealth;
    std::unique_ptr<ApprovalService> approvals;
    std::unique_ptr<NetworkAccess> network;   // network requests and the sbx rules chat2sbx added
    std::unique_ptr<WorkspaceRetention> retention;
    std::unique_ptr<ActivityMonitor> activity;
    std::unique_ptr<SandboxSleep> sleep;
    std::unique_ptr<TunnelSupervisor> tunnel;   // exists from construction: the endpoint gives it the local token
};

} // namespace chat2sbx
