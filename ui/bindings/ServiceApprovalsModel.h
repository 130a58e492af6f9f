#pragma once


#include "models/TrayModels.h"

namespace chat2sbx {
class ApprovalService;
class ExportApprovals;
}

namespace chat2sbx::ui {

// ApprovalsModel over ApprovalService (folders) and ExportApprovals (files to save): their changes →
// changed, new requests → requested; folders first, then exports, each oldest first. Decisions are
// recorded as made by "tray".
class ServiceApprovalsModel : public ApprovalsModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    // `names` gives a sandbox's short name; `exportDir` is where approved exports land.
    ServiceApprovalsModel(ApprovalService &service, ExportApprovals &exports, std::function<QString(const QString &)> names,
                          QString exportDir, QObject *parent = nullptr);
    QList<ApprovalRow> pending() const override;
    bool approve(const QString &id, QString &error) override;
    bool reject(const QString &id, QString &error) override;

private:
    // Outlives this: a server service (through TrayServices), which outlives the tray's models.
    ApprovalService &m_service;
    ExportApprovals &m_exports;
    std::function<QString(const QString &)> m_names;
    QString m_exportDir;
};

} // namespace chat2sbx::ui

