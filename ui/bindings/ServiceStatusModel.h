#pragma once

#include "models/TrayModels.h"

namespace chat2sbx {
class TrayServices;
}

namespace chat2sbx::ui {

// StatusModel over the server's state and status report (TrayServices), its TunnelSupervisor,
// SandboxService and SbxHealth.
class ServiceStatusModel : public StatusModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    explicit ServiceStatusModel(TrayServices &services, QObject *parent = nullptr);
    StatusInfo status() const override;
    bool prepare(std::function<void(const QString &line)> line, ResultCallback done) override;
    void cancelPrepare() override;
    void checkAgain() override;
    void importTunnelFiles(const QString &fileA, const QString &fileB, TunnelFilesDone done) override;
    bool addHostFolder(const QString &dir, QString &message) override;
    void useSbxProgram(const QString &path, ResultCallback done) override;

private:
    // Outlives this: ServiceModels holds it, and drops it after the models.
    TrayServices &m_services;
    QString m_failure;
};

} // namespace chat2sbx::ui
