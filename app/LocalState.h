#pragma once

#include "Command.h"

#include "core/Clock.h"
#include "state/Approval.h"
#include "state/Database.h"
#include "workspace/ApprovalService.h"
#include "workspace/WorkspaceService.h"

#include <QJsonObject>

namespace chat2sbx::app {

// The state database opened directly by a CLI command, with the workspace and approval services
// over it. No running server is needed: a server notices the changes through SQLite.
class LocalState {
public:
    explicit LocalState(const Config &config);
    bool open(QString &error);

    WorkspaceService &workspaces() { return m_workspaces; }
    ApprovalService &approvals() { return m_approvals; }

private:
    const Config &m_config;
    Database m_db;
    WorkspaceService m_workspaces;
    ApprovalService m_approvals;
};

// The --json shape the approval commands print (workspaces: workspaceJson, sandbox/present/SandboxPresenter.h).
QJsonObject approvalToJson(const Approval &a);

} // namespace chat2sbx::app
