#pragma once

#include "models/ActivityModel.h"
#include "models/TrayModels.h"
#include "models/WorkspacesModel.h"
#include "runtime/TrayServices.h"

#include <memory>

namespace chat2sbx::ui {

// The adapters bound to the server's services through TrayServices (its narrow view of the
// Controller) and their signals. Nothing here reads the database directly or polls: rows are re-read
// from the services when they signal a change.
struct ServiceModels {
    std::unique_ptr<TrayServices> services;   // outlives the models below, which bind to it
    std::unique_ptr<ApprovalsModel> approvals;
    std::unique_ptr<SandboxesModel> sandboxes;
    std::unique_ptr<StatusModel> status;
    std::unique_ptr<ActivityModel> activity;
    std::unique_ptr<WorkspacesModel> workspaces;
    std::unique_ptr<NetworkModel> network;
};

// The Controller only gives the view its services; the models never see it.
ServiceModels makeServiceModels(Controller &controller);

} // namespace chat2sbx::ui
