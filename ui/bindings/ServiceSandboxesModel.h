#pragma once


#include "models/TrayModels.h"

#include <functional>

namespace chat2sbx {
class CheckpointService;
class PublicPorts;
class SandboxMover;
class SandboxService;
}

namespace chat2sbx::ui {

// SandboxesModel over SandboxService (and CheckpointService): sandboxesChanged and checkpointsChanged →
// changed; destroy, restore, fork and deleting a checkpoint go through the services.
class ServiceSandboxesModel : public SandboxesModel {
    // No Q_OBJECT: it adds no signals or slots of its own.
public:
    explicit ServiceSandboxesModel(SandboxService &service, QObject *parent = nullptr);
    QList<SandboxRow> sandboxes() const override;
    void destroy(const QString &id, ResultCallback done) override;
    void pause(const QString &id, bool endRunningCommands, PauseCallback done) override;
    void extend(const QString &id, ResultCallback done) override;
    void unpublish(const QString &id, int port, ResultCallback done) override;
    void move(const QString &id, bool toCloud, bool endRunningCommands, ResultCallback done) override;
    void restore(const QString &sandboxId, const QString &checkpointId, ResultCallback done) override;
    void fork(const QString &checkpointId, ResultCallback done) override;
    void deleteCheckpoint(const QString &checkpointId, ResultCallback done) override;
    // The sandboxes' checkpoints, restores and forks (unset: none shown, the three above refuse).
    void setCheckpoints(CheckpointService *checkpoints);
    // A cloud sandbox's published ports: shown with their public URL, and unpublished.
    void setPublicPorts(PublicPorts *ports);
    // Moves between this computer and the cloud (unset: none offered); `cloudOn`: the user allows the cloud.
    void setMover(SandboxMover *mover, bool cloudOn);
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
    CheckpointService *m_checkpoints = nullptr;
    PublicPorts *m_publicPorts = nullptr;
    SandboxMover *m_mover = nullptr;
    bool m_cloudOn = false;
};

} // namespace chat2sbx::ui

