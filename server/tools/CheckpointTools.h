#pragma once

namespace chat2sbx {

struct Config;
class CheckpointService;
class SandboxService;
class ToolRegistry;

// sandbox_checkpoint (save a sandbox as it is now), sandbox_checkpoints (list them), sandbox_restore
// (the same sandbox back at one of them) and sandbox_fork (a new sandbox from one).
void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes,
                             const Config &config);

} // namespace chat2sbx
