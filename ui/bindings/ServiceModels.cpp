#include "bindings/ServiceModels.h"

#include "bindings/ServiceActivityModel.h"
#include "bindings/ServiceApprovalsModel.h"
#include "bindings/ServiceNetworkModel.h"
#include "bindings/ServiceSandboxesModel.h"
#include "bindings/ServiceSandboxNames.h"
#include "bindings/ServiceStatusModel.h"
#include "bindings/ServiceWorkspacesModel.h"
#include "runtime/Controller.h"
#include "sandbox/lifecycle/ActivityMonitor.h"

namespace chat2sbx::ui {

ServiceModels makeServiceModels(Controller &controller)
{
    ServiceModels m;
    m.services = std::make_unique<TrayServices>(controller);
    TrayServices &services = *m.services;
    SandboxService *sandboxService = &services.sandboxes();
    m.approvals = std::make_unique<ServiceApprovalsModel>(
        services.approvals(), services.exportApprovals(), services.publicPorts(),
        [sandboxService](const QString &id) { return ServiceSandboxNames(*sandboxService)(id); }, services.exportDir());
    auto sandboxes = std::make_unique<ServiceSandboxesModel>(services.sandboxes());
    ActivityMonitor *monitor = &services.activity();
    sandboxes->setRunningCounter([monitor](const QString &id) { return monitor->runningCount(id); });
    sandboxes->setConversationLookup([monitor](const QString &id) {
        const auto c = monitor->conversationsOf(id);
        return qMakePair(c.first, c.last);
    });
    sandboxes->setCheckpoints(&services.checkpoints());
    sandboxes->setPublicPorts(&services.publicPorts());
    sandboxes->setMover(&services.mover(), services.cloudSandboxes());
    m.sandboxes = std::move(sandboxes);
    m.activity = std::make_unique<ServiceActivityModel>(services.activity(), services.sandboxes());
    m.status = std::make_unique<ServiceStatusModel>(services);
    m.workspaces = std::make_unique<ServiceWorkspacesModel>(services.workspaces(), services.sandboxes(), services.changes(),
                                                            services.workspaceRemoval());
    m.network = std::make_unique<ServiceNetworkModel>(services.network(), services.sandboxes());
    // Requests that waited across a restart are shown and notified again once the server runs (the
    // database is open then): each as if it had just come.
    ApprovalsModel *approvals = m.approvals.get();
    NetworkModel *network = m.network.get();
    QObject::connect(&controller, &Controller::started, approvals, [approvals, network] {
        emit approvals->changed();
        for (const ApprovalRow &row : approvals->pending())
            emit approvals->requested(row);
        emit network->changed();
        for (const NetworkRequestRow &row : network->pending())
            emit network->requested(row);
    });
    WorkspacesModel *workspaces = m.workspaces.get();
    QObject::connect(&services, &TrayServices::fileExported, workspaces, [workspaces, &services](const QString &id, const QString &path) {
        ServiceSandboxNames names(services.sandboxes());
        emit workspaces->fileExported(path, names(id));
    });
    return m;
}

} // namespace chat2sbx::ui
