#pragma once

// Compiled only once the service is part of the build.
#if __has_include("sandbox/SandboxService.h")

#include "TrayModels.h"

namespace chat2sbx {
class SandboxService;
}

namespace chat2sbx::ui {

// SandboxesModel over SandboxService: sandboxesChanged → changed; destroy goes through the service.
class ServiceSandboxesModel : public SandboxesModel {
    Q_OBJECT
public:
    explicit ServiceSandboxesModel(SandboxService &service, QObject *parent = nullptr);
    QList<SandboxRow> sandboxes() const override;
    void destroy(const QString &id, ResultCallback done) override;

private:
    SandboxService &m_service;
};

} // namespace chat2sbx::ui

#endif
