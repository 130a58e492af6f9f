#pragma once

#include "state/Workspace.h"

#include <QString>

namespace chat2sbx {

enum class ApprovalState { Pending, Approved, Rejected };

QString approvalStateName(ApprovalState state);
bool parseApprovalState(const QString &text, ApprovalState &out);

// A request for access to one host directory in one mode (clone or direct). Created pending by an
// MCP workspace_request; decided once, by the local user (CLI or tray), never by a tool call.
struct Approval {
    QString id;                  // apr_ + random
    QString hostPath;            // canonical path at request time
    WorkspaceMode mode = WorkspaceMode::Clone;
    ApprovalState state = ApprovalState::Pending;
    QString displayName;         // the folder's name, for lists and the tray
    qint64 requestedAt = 0;
    qint64 decidedAt = 0;        // 0 while pending
    QString decidedBy;           // "cli", "tray", ... ; empty while pending
    QString workspaceId;         // the registered workspace once approved
    qint64 hostDevice = 0;       // identity of the directory when it was requested
    qint64 hostInode = 0;

    bool isPending() const { return state == ApprovalState::Pending; }
};

} // namespace chat2sbx
