#pragma once


#include "TrayModels.h"

namespace chat2sbx {
class ApprovalService;
}

namespace chat2sbx::ui {

// ApprovalsModel over ApprovalService: approvalsChanged → changed, approvalRequested → requested.
// Decisions are recorded as made by "tray".
class ServiceApprovalsModel : public ApprovalsModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    explicit ServiceApprovalsModel(ApprovalService &service, QObject *parent = nullptr);
    QList<ApprovalRow> pending() const override;
    bool approve(const QString &id, QString &error) override;
    bool reject(const QString &id, QString &error) override;

private:
    // Outlives this: a server service (through TrayServices), which outlives the tray's models.
    ApprovalService &m_service;
};

} // namespace chat2sbx::ui

