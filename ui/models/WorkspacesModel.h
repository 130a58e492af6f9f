#pragma once

#include "models/TrayModels.h"

#include <QList>
#include <QObject>
#include <QString>

#include <functional>

namespace chat2sbx::ui {

struct WorkspaceSandboxRow {
    QString id;      // sbx_...
    QString state;   // creating, running, stopped, destroying, failed
    QString name = {};   // sandboxShortName; empty: show the id
};

struct WorkspaceRow {
    QString id;      // ws_...
    QString name;
    QString mode;    // managed, clone, direct
    QString path;    // host path (empty for managed: the data directory is not shown)
    QList<WorkspaceSandboxRow> sandboxes;
    bool inCloud = false;   // a sandbox of it runs in Docker's cloud: a managed one's files are in that VM
};

// Live workspaces, the review/export of their sandboxes' work and their removal (Revoke). Bound to
// the server's WorkspaceService, SandboxService, ChangesService and WorkspaceRemoval by
// ServiceWorkspacesModel; tests may substitute their own.
class WorkspacesModel : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    virtual QList<WorkspaceRow> workspaces() const = 0;
    // One line about the work in a running sandbox's git workspace ("2 commits · 3 files +12 −4"),
    // or why there is none; asynchronous, `done` runs once on the GUI thread.
    virtual void summarize(const QString &sandboxId, std::function<void(const QString &)> done) = 0;
    // "Fetch as branch": the clone sandbox's work becomes chat2sbx/<sandbox id> in the host
    // repository; `done(ok, message)` names the branch or says why not.
    virtual void fetch(const QString &sandboxId, ResultCallback done) = 0;
    // Revoke (host) / move to trash (managed), after destroying its sandboxes (work saved first).
    virtual void revoke(const QString &workspaceId, ResultCallback done) = 0;

signals:
    void changed();
    // Something the user should hear about even with the popup closed: a destroy or idle expiry
    // saved work on a branch, or could not and left the sandbox in place (warning).
    void notice(const QString &title, const QString &body, bool warning);
    // export_file put a file on this computer (the notification offers Open and Show in folder).
    void fileExported(const QString &hostPath, const QString &sandboxName);
};

} // namespace chat2sbx::ui
