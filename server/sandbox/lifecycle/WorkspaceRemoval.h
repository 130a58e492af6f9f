#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>

namespace chat2sbx {

class SandboxService;
class WorkspaceRetention;
class WorkspaceService;

// The user removes a workspace (CLI `workspace remove`, the tray's Revoke): its sandboxes are
// destroyed first (a clone's work saved as a host branch by the DestroyGuard, exactly like
// sandbox_destroy; if that fails nothing is revoked), then a host workspace's approval is withdrawn
// (a new workspace_request and approval are needed) and a managed workspace goes to the trash.
class WorkspaceRemoval : public QObject {
    Q_OBJECT
public:
    WorkspaceRemoval(WorkspaceService &workspaces, SandboxService &sandboxes, WorkspaceRetention &retention,
                     QObject *parent = nullptr);

    struct Outcome {
        bool ok = false;
        QString error;
        QStringList destroyedSandboxes;
        QStringList savedBranches;   // host branches now holding the work of those sandboxes
        QString summary;             // one readable paragraph
    };
    void remove(const QString &workspaceId, std::function<void(const Outcome &)> done);

private:
    void destroyNext(const QString &workspaceId, QStringList pending, Outcome progress,
                     std::function<void(const Outcome &)> done);
    void finish(const QString &workspaceId, Outcome outcome, std::function<void(const Outcome &)> done);

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    WorkspaceService &m_workspaces;
    SandboxService &m_sandboxes;
    WorkspaceRetention &m_retention;
};

} // namespace chat2sbx
