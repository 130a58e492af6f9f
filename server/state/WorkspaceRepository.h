#pragma once

#include "state/Workspace.h"

#include <QHash>
#include <QList>
#include <optional>

class QSqlQuery;

namespace chat2sbx {

class Database;
class SqliteStatement;

// Rows of the workspaces table. Every write is committed before it returns.
class WorkspaceRepository {
public:
    explicit WorkspaceRepository(Database &db) : m_db(db) {}

    // The workspace columns in the order fromRow reads them, each prefixed with `alias` ("w.") for a join.
    static QString columns(const QString &alias = {});
    // A workspace from the columns() that start at column `first` of the current row.
    static Workspace fromRow(const QSqlQuery &q, int first = 0);
    static Workspace fromRow(const SqliteStatement &q, int first = 0);

    bool insert(const Workspace &w, QString &error);
    std::optional<Workspace> find(const QString &id) const;
    // A live (not trashed) host workspace registered for this canonical path and mode.
    std::optional<Workspace> findHost(const QString &hostPath, WorkspaceMode mode) const;
    QList<Workspace> list(bool includeTrashed = false) const;
    bool touch(const QString &id, qint64 nowMs, QString &error);
    // A host workspace whose approval the user withdrew: no longer live (a new request is needed).
    bool markRevoked(const QString &id, qint64 nowMs, QString &error);
    // Marks a managed workspace trashed and records where its folder now is.
    bool moveToTrash(const QString &id, const QString &trashPath, qint64 nowMs, QString &error);

    // Deletes a managed workspace's row when no sandbox record (in any state) names it; false (no
    // error) when one does or it is not managed.
    bool removeUnusedManaged(const QString &id, QString &error);

    bool updateHostIdentity(const QString &id, qint64 device, qint64 inode, QString &error);

    // Read-only views of the sandboxes table.
    // workspace id -> its newest active sandbox (isActiveSandboxState: a sleeping one included).
    QHash<QString, QString> activeSandboxes() const;
    // workspace id -> when its last sandbox ended (failed or destroyed), in ms.
    QHash<QString, qint64> lastSandboxEnds() const;

private:
    // column is one of this class's own literals, never input.
    bool setTimestamp(const char *column, const QString &id, qint64 nowMs, QString &error);

    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
