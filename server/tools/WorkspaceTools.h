#pragma once

namespace chat2sbx {

class ApprovalService;
class ToolRegistry;
class WorkspaceService;

// workspace_list and workspace_request. workspace_request never grants access: it only creates
// (or finds) a pending approval that the local user decides in the tray or with the CLI.
void registerWorkspaceTools(ToolRegistry &registry, WorkspaceService &workspaces, ApprovalService &approvals);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addWorkspaceListTool(ToolRegistry &registry, WorkspaceService &workspaces);
void addWorkspaceRequestTool(ToolRegistry &registry, WorkspaceService &workspaces, ApprovalService &approvals);

} // namespace chat2sbx
