#pragma once


#include "models/TrayModels.h"

#include <functional>

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
    // How many commands run in a sandbox now (the Destroy confirmation says it); unset: 0.
    void setRunningCounter(std::function<int(const QString &sandboxId)> counter) { m_running = std::move(counter); }
    // Which ChatGPT conversations created and last used a sandbox (full ids; shortened for the rows).
    using Conversations = std::function<QPair<QString, QString>(const QString &sandboxId)>;
    void setConversationLookup(Conversations lookup) { m_conversations = std::move(lookup); }

private:
    // Outlives this: a server service (through TrayServices), which outlives the tray's models.
    SandboxService &m_service;
    std::function<int(const QString &)> m_running;
    Conversations m_conversations;
};

} // namespace chat2sbx::ui

