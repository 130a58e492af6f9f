#pragma once

#include "state/Approval.h"

#include <QJsonObject>

namespace chat2sbx::app {

// The --json shape the approval commands print (workspaces: workspaceJson, sandbox/present/SandboxPresenter.h).
QJsonObject approvalToJson(const Approval &a);

} // namespace chat2sbx::app
