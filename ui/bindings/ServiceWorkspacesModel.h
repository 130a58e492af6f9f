#pragma once

#include "models/WorkspacesModel.h"

namespace chat2sbx {
class ChangesService;
class SandboxService;
class WorkspaceRemoval;
class WorkspaceService;
}

namespace chat2sbx::ui {

class ServiceWorkspacesModel : public WorkspacesModel {
    Q_OBJECT
public:
    ServiceWorkspacesModel(WorkspaceService &workspaces, SandboxService &sandboxes, ChangesService &changes,
                           WorkspaceRemoval &removal, QObject *parent = nullptr);

    QList<WorkspaceRow> workspaces() const override;
    void summarize(const QString &sandboxId, std::function<void(const QString &)> done) override;
    void fetch(const QString &sandboxId, ResultCallback done) override;
    void revoke(const QString &workspaceId, ResultCallback done) override;

private:
    // Outlive this: server services (through TrayServices), which outlive the tray's models.
    WorkspaceService &m_workspaces;
    SandboxService &m_sandboxes;
    ChangesService &m_changes;
    WorkspaceRemoval &m_removal;
};

} // namespace chat2sbx::ui
