#include "ServiceModels.h"

#include "ServiceStatusModel.h"
#include "runtime/Controller.h"

#include "ServiceActivityModel.h"
#include "ServiceApprovalsModel.h"
#include "sandbox/ActivityMonitor.h"
#include "ServiceSandboxesModel.h"

namespace chat2sbx::ui {

ServiceModels makeServiceModels(Controller &controller)
{
    ServiceModels m;
    m.approvals = std::make_unique<ServiceApprovalsModel>(controller.approvals());
    auto sandboxes = std::make_unique<ServiceSandboxesModel>(controller.sandboxes());
    ActivityMonitor *monitor = &controller.activity();
    sandboxes->setRunningCounter([monitor](const QString &id) { return monitor->runningCount(id); });
    m.sandboxes = std::move(sandboxes);
    m.activity = std::make_unique<ServiceActivityModel>(controller.activity());
    m.status = std::make_unique<ServiceStatusModel>(controller);
    return m;
}

} // namespace chat2sbx::ui
