#include "tools/WorkspaceTools.h"

namespace chat2sbx {

void registerWorkspaceTools(ToolRegistry &registry, WorkspaceService &workspaces, ApprovalService &approvals)
{
    addWorkspaceListTool(registry, workspaces);
    addWorkspaceRequestTool(registry, workspaces, approvals);
}

} // namespace chat2sbx
