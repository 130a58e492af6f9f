#pragma once


#include "models/TrayModels.h"

namespace chat2sbx {
class ApprovalService;
class ExportApprovals;
class PublicPorts;
}

namespace chat2sbx::ui {

// ApprovalsModel over ApprovalService (folders), ExportApprovals (files to save) and PublicPorts
// (cloud ports on the internet): their changes → changed, new requests → requested; folders first,
// then exports, then ports, each oldest first. Decisions are recorded as made by "tray".
class ServiceApprovalsModel : public ApprovalsModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    // `names` gives a sandbox's short name; `exportDir` is where approved exports land.
    ServiceApprovalsModel(ApprovalService &service, ExportApprovals &exports, PublicPorts &ports,
                          std::function<QString(const QString &)> names, QString exportDir, QObject *parent = nullptr);
    QList<ApprovalRow> pending() const override;
    bool approve(const QString &id, QString &error) override;
    bool reject(const QString &id, QString &error) override;

private:
    // Outlives this: a server service (through TrayServices), which outlives the tray's models.
    ApprovalService &m_service;
    ExportApprovals &m_exports;
    PublicPorts &m_ports;
    std::function<QString(const QString &)> m_names;
    QString m_exportDir;
};

} // namespace chat2sbx::ui

