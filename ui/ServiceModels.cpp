#include "ServiceModels.h"

#include "ServiceStatusModel.h"
#include "ServiceWorkspacesModel.h"
#include "runtime/Controller.h"

#include "ServiceApprovalsModel.h"
#include "ServiceSandboxesModel.h"

namespace chat2sbx::ui {

ServiceModels makeServiceModels(Controller &controller)
{
    ServiceModels m;
    m.approvals = std::make_unique<ServiceApprovalsModel>(controller.approvals());
    m.sandboxes = std::make_unique<ServiceSandboxesModel>(controller.sandboxes());
    m.status = std::make_unique<ServiceStatusModel>(controller);
    m.workspaces = std::make_unique<ServiceWorkspacesModel>(controller.workspaces(), controller.sandboxes(), controller.changes(),
                                                            controller.workspaceRemoval());
    return m;
}

} // namespace chat2sbx::ui
