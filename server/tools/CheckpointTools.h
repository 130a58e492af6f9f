#pragma once

namespace chat2sbx {

struct Config;
class CheckpointService;
class SandboxService;
class ToolRegistry;

// sandbox_checkpoint (save a sandbox as it is now), sandbox_checkpoints (list them), sandbox_restore
// (the same sandbox back at one of them), sandbox_checkpoint_delete and sandbox_fork (a new sandbox
// from one).
void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes,
                             const Config &config);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addSandboxCheckpointTool(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config);
void addSandboxCheckpointsTool(ToolRegistry &registry, CheckpointService &checkpoints);
void addSandboxRestoreTool(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config);
void addSandboxCheckpointDeleteTool(ToolRegistry &registry, CheckpointService &checkpoints);
void addSandboxForkTool(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes, const Config &config);

} // namespace chat2sbx
