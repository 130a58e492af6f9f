#include "ServiceModels.h"

#include "ServiceStatusModel.h"
#include "runtime/Controller.h"

#if __has_include("workspace/ApprovalService.h")
#include "ServiceApprovalsModel.h"
#define CHAT2SBX_UI_HAS_APPROVALS 1
#endif
#include "ServiceSandboxesModel.h"

namespace chat2sbx::ui {

namespace {
// Stand-ins while a service is not part of the build: always empty, every action refused.
class NoApprovals : public ApprovalsModel {
public:
    QList<ApprovalRow> pending() const override { return {}; }
    bool approve(const QString &, QString &error) override { return refuse(error); }
    bool reject(const QString &, QString &error) override { return refuse(error); }

private:
    static bool refuse(QString &error)
    {
        error = QStringLiteral("approvals are not available in this build");
        return false;
    }
};

} // namespace

ServiceModels makeServiceModels(Controller &controller)
{
    ServiceModels m;
#ifdef CHAT2SBX_UI_HAS_APPROVALS
    m.approvals = std::make_unique<ServiceApprovalsModel>(controller.approvals());
#else
    m.approvals = std::make_unique<NoApprovals>();
#endif
    m.sandboxes = std::make_unique<ServiceSandboxesModel>(controller.sandboxes());
    m.status = std::make_unique<ServiceStatusModel>(controller);
    return m;
}

} // namespace chat2sbx::ui
