#pragma once

#include "TrayModels.h"

namespace chat2sbx {
class Controller;
}

namespace chat2sbx::ui {

// StatusModel over the Controller (server state, endpoint), its TunnelSupervisor, SandboxService and
// SbxHealth, read through runtime/StatusReportBuilder.
class ServiceStatusModel : public StatusModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    explicit ServiceStatusModel(Controller &controller, QObject *parent = nullptr);
    StatusInfo status() const override;

private:
    // Outlives this: the Controller outlives the tray's models.
    Controller &m_controller;
    QString m_failure;
};

} // namespace chat2sbx::ui
