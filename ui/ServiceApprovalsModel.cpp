#include "ServiceApprovalsModel.h"

#include "workspace/ApprovalService.h"

namespace chat2sbx::ui {

namespace {
ApprovalRow rowOf(const Approval &a)
{
    return ApprovalRow{a.id, a.hostPath, workspaceModeName(a.mode), a.requestedAt, a.clientName, a.reason};
}
} // namespace

ServiceApprovalsModel::ServiceApprovalsModel(ApprovalService &service, QObject *parent)
    : ApprovalsModel(parent), m_service(service)
{
    connect(&service, &ApprovalService::approvalsChanged, this, &ApprovalsModel::changed);
    connect(&service, &ApprovalService::approvalRequested, this, [this](const QString &id) {
        if (const std::optional<Approval> a = m_service.find(id))
            emit requested(rowOf(*a));
    });
}

QList<ApprovalRow> ServiceApprovalsModel::pending() const
{
    QList<ApprovalRow> rows;
    for (const Approval &a : m_service.pending())
        rows.append(rowOf(a));
    return rows;
}

bool ServiceApprovalsModel::approve(const QString &id, QString &error)
{
    return m_service.approve(id, QStringLiteral("tray"), error).has_value();
}

bool ServiceApprovalsModel::reject(const QString &id, QString &error)
{
    return m_service.reject(id, QStringLiteral("tray"), error);
}

} // namespace chat2sbx::ui
