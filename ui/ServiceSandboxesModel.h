#pragma once


#include "TrayModels.h"

namespace chat2sbx {
class SandboxService;
}

namespace chat2sbx::ui {

// SandboxesModel over SandboxService: sandboxesChanged → changed; destroy goes through the service.
class ServiceSandboxesModel : public SandboxesModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    explicit ServiceSandboxesModel(SandboxService &service, QObject *parent = nullptr);
    QList<SandboxRow> sandboxes() const override;
    void destroy(const QString &id, ResultCallback done) override;

private:
    SandboxService &m_service;
};

} // namespace chat2sbx::ui

