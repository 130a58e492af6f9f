#include "state/WarmHandOver.h"

#include "state/Database.h"
#include "state/WorkspaceRepository.h"

#include <QSqlDatabase>

namespace chat2sbx {

WarmHandOverRows warmHandOverRows(const QString &sandboxId, const QString &workspaceId, const QString &workspacePath,
                                  const QString &runtimeName, qint64 nowMs, qint64 idleMs)
{
    WarmHandOverRows rows;
    Workspace &w = rows.workspace;
    w.id = workspaceId;
    w.mode = WorkspaceMode::Managed;
    w.hostPath = workspacePath;
    w.displayName = QStringLiteral("managed workspace %1").arg(w.id);
    w.createdAt = w.lastUsedAt = nowMs;
    SandboxRecord &r = rows.sandbox;
    r.id = sandboxId;
    r.workspaceId = w.id;
    r.runtimeName = runtimeName;
    r.createdAt = r.updatedAt = r.lastActivityAt = nowMs;
    r.idleDeadline = nowMs + idleMs;
    return rows;
}

bool commitWarmHandOver(Database &db, const std::function<bool(QString &)> &takeWarmRow, const WarmHandOverRows &rows,
                        int limit, bool &limitReached, QString &error)
{
    limitReached = false;
    QSqlDatabase &handle = db.handle();
    if (!handle.transaction()) {
        error = QStringLiteral("no transaction");
        return false;
    }
    SandboxRepository sandboxes(db);
    WorkspaceRepository workspaces(db);
    const bool ok = takeWarmRow(error) && workspaces.insert(rows.workspace, error)
                    && sandboxes.insertWithinLimit(rows.sandbox, limit, limitReached, error);
    if (!ok || !handle.commit()) {
        handle.rollback();
        return false;
    }
    return true;
}

} // namespace chat2sbx
