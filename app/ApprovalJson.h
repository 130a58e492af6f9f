#pragma once

#include "state/Approval.h"
#include "state/ExportRequest.h"

#include <QJsonObject>

namespace chat2sbx::app {

// The --json shape the approval commands print (workspaces: workspaceJson, sandbox/present/SandboxPresenter.h).
QJsonObject approvalToJson(const Approval &a);
// An export that waits for (or had) the user's decision: "kind": "export" (folders: "kind": "folder").
QJsonObject exportRequestToJson(const ExportRequest &r);

} // namespace chat2sbx::app
