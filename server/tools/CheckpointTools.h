#pragma once

namespace chat2sbx {

struct Config;
class CheckpointService;
class ToolRegistry;

// sandbox_checkpoint (save a sandbox as it is now) and sandbox_checkpoints (list them): issue 45's
// first part; restore and fork come next.
void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, const Config &config);

} // namespace chat2sbx
