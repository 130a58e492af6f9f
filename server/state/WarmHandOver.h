#pragma once

#include "state/SandboxRepository.h"
#include "state/Workspace.h"

#include <QString>

#include <functional>

namespace chat2sbx {

class Database;

// What a warm sandbox's hand-over writes (WarmPool, CloudWarmPool): the managed workspace row its
// reserved ids name and the sandbox row; the caller sets what differs (state, template, placement).
struct WarmHandOverRows {
    Workspace workspace;
    SandboxRecord sandbox;
};
WarmHandOverRows warmHandOverRows(const QString &sandboxId, const QString &workspaceId, const QString &workspacePath,
                                  const QString &runtimeName, qint64 nowMs, qint64 idleMs);

// In one transaction: the warm row taken (`takeWarmRow` false: it was no longer ready), the workspace
// row, and the sandbox row within `limit`. On any failure nothing is written; limitReached says when
// the limit refused it, else `error` says why (empty: the warm row was gone).
bool commitWarmHandOver(Database &db, const std::function<bool(QString &error)> &takeWarmRow, const WarmHandOverRows &rows,
                        int limit, bool &limitReached, QString &error);

} // namespace chat2sbx
