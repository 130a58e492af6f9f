#include "tools/CheckpointTools.h"

namespace chat2sbx {

void registerCheckpointTools(ToolRegistry &registry, CheckpointService &checkpoints, SandboxService &sandboxes,
                             const Config &config)
{
    addSandboxCheckpointTool(registry, checkpoints, config);
    addSandboxCheckpointsTool(registry, checkpoints);
    addSandboxRestoreTool(registry, checkpoints, config);
    addSandboxCheckpointDeleteTool(registry, checkpoints);
    addSandboxForkTool(registry, checkpoints, sandboxes, config);
}

} // namespace chat2sbx
