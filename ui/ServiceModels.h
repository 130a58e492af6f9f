#pragma once

#include "ActivityModel.h"
#include "TrayModels.h"
#include "WorkspacesModel.h"

#include <memory>

namespace chat2sbx {
class Controller;
}

namespace chat2sbx::ui {

// The three adapters bound to the Controller's services (ApprovalService, SandboxService,
// TunnelSupervisor) and their signals. Nothing here reads the database directly or polls: rows are
// re-read from the services when they signal a change.
struct ServiceModels {
    std::unique_ptr<ApprovalsModel> approvals;
    std::unique_ptr<SandboxesModel> sandboxes;
    std::unique_ptr<StatusModel> status;
    std::unique_ptr<ActivityModel> activity;
    std::unique_ptr<WorkspacesModel> workspaces;
    std::unique_ptr<NetworkModel> network;
};

ServiceModels makeServiceModels(Controller &controller);

} // namespace chat2sbx::ui
