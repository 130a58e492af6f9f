#include "ServiceModels.h"

#include "ServiceStatusModel.h"
#include "runtime/Controller.h"

#if __has_include("workspace/ApprovalService.h")
#include "ServiceApprovalsModel.h"
#define CHAT2SBX_UI_HAS_APPROVALS 1
#endif
#if __has_include("sandbox/SandboxService.h")
#include "ServiceSandboxesModel.h"
#define CHAT2SBX_UI_HAS_SANDBOXES 1
#endif

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

class NoSandboxes : public SandboxesModel {
public:
    QList<SandboxRow> sandboxes() const override { return {}; }
    void destroy(const QString &, ResultCallback done) override
    {
        done(false, QStringLiteral("sandboxes are not available in this build"));
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
#ifdef CHAT2SBX_UI_HAS_SANDBOXES
    m.sandboxes = std::make_unique<ServiceSandboxesModel>(controller.sandboxes());
#else
    m.sandboxes = std::make_unique<NoSandboxes>();
#endif
    m.status = std::make_unique<ServiceStatusModel>(controller);
    return m;
}

} // namespace chat2sbx::ui
