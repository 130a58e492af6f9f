#pragma once

namespace chat2sbx {

struct Config;
struct SandboxToolContext;
class ChannelPool;
class CheckpointService;
class NetworkAccess;
class PublicPorts;
class SandboxMover;
class SandboxService;
class ToolRegistry;

// sandbox_create, sandbox_get, sandbox_list, sandbox_destroy, sandbox_expose, sandbox_unexpose.
// With `publicPorts`, a cloud sandbox's port is published on the internet once the user approves.
// With `channels`, sandbox_expose also reports whether something listens on the port inside the
// sandbox (null without). With `network`, sandbox_get lists the hosts its network policy blocked lately;
// with `checkpoints`, its checkpoints.
void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config,
                          ChannelPool *channels = nullptr, NetworkAccess *network = nullptr,
                          CheckpointService *checkpoints = nullptr, PublicPorts *publicPorts = nullptr);

// sandbox_move: between this computer and Docker's cloud (SandboxMover).
void registerSandboxMoveTool(ToolRegistry &registry, SandboxMover &mover, SandboxService &sandboxes, const Config &config);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addSandboxCreateTool(ToolRegistry &registry, const SandboxToolContext &context);
void addSandboxGetTool(ToolRegistry &registry, const SandboxToolContext &context);
void addSandboxListTool(ToolRegistry &registry, const SandboxToolContext &context);
void addSandboxDestroyTool(ToolRegistry &registry, const SandboxToolContext &context);
void addSandboxExposeTool(ToolRegistry &registry, const SandboxToolContext &context);
void addSandboxUnexposeTool(ToolRegistry &registry, const SandboxToolContext &context);

} // namespace chat2sbx
