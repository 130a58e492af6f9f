#include "ServiceModels.h"

#include "runtime/Controller.h"
#include "ServiceStatusModel.h"
#include "ServiceWorkspacesModel.h"

#include "sandbox/lifecycle/ActivityMonitor.h"
#include "ServiceActivityModel.h"
#include "ServiceApprovalsModel.h"
#include "ServiceNetworkModel.h"
#include "ServiceSandboxesModel.h"

namespace chat2sbx::ui {

ServiceModels makeServiceModels(Controller &controller)
{
    ServiceModels m;
    m.approvals = std::make_unique<ServiceApprovalsModel>(controller.approvals());
    auto sandboxes = std::make_unique<ServiceSandboxesModel>(controller.sandboxes());
    ActivityMonitor *monitor = &controller.activity();
    sandboxes->setRunningCounter([monitor](const QString &id) { return monitor->runningCount(id); });
    sandboxes->setConversationLookup([monitor](const QString &id) {
        const auto c = monitor->conversationsOf(id);
        return qMakePair(c.first, c.last);
    });
    m.sandboxes = std::move(sandboxes);
    m.activity = std::make_unique<ServiceActivityModel>(controller.activity());
    m.status = std::make_unique<ServiceStatusModel>(controller);
    m.workspaces = std::make_unique<ServiceWorkspacesModel>(controller.workspaces(), controller.sandboxes(), controller.changes(),
                                                            controller.workspaceRemoval());
    m.network = std::make_unique<ServiceNetworkModel>(controller.network(), controller.sandboxes());
    return m;
}

} // namespace chat2sbx::ui
