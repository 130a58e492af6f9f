#include "state/WorkspaceRepository.h"

#include "state/Database.h"
#include "state/SandboxState.h"
#include "state/SqlStatement.h"
#include "state/SqliteStatement.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kInsertColumns[] = "id, mode, host_path, display_name, created_at, last_used_at, trashed_at, host_device, host_inode";
const char kColumns[] = "id, mode, host_path, display_name, created_at, last_used_at, trashed_at, host_device, host_inode, revoked_at";

} // namespace

QString WorkspaceRepository::columns(const QString &alias)
{
    QStringList out;
    for (const QString &c : QString::fromLatin1(kColumns).split(QStringLiteral(", ")))
        out.append(alias + c);
    return out.join(QStringLiteral(", "));
}

namespace {

// Row: QSqlQuery or SqliteStatement (the sandbox list's join).
template <class Row>
Workspace workspaceFromRow(const Row &q, int first)
{
    Workspace w;
    w.id = q.value(first).toString();
    parseWorkspaceMode(q.value(first + 1).toString(), w.mode);
    w.hostPath = q.value(first + 2).toString();
    w.displayName = q.value(first + 3).toString();
    w.createdAt = q.value(first + 4).toLongLong();
    w.lastUsedAt = q.value(first + 5).toLongLong();
    w.trashedAt = q.value(first + 6).isNull() ? 0 : q.value(first + 6).toLongLong();
    w.hostDevice = q.value(first + 7).toLongLong();
    w.hostInode = q.value(first + 8).toLongLong();
    w.revokedAt = q.value(first + 9).isNull() ? 0 : q.value(first + 9).toLongLong();
    return w;
}

} // namespace

Workspace WorkspaceRepository::fromRow(const QSqlQuery &q, int first)
{
    return workspaceFromRow(q, first);
}

Workspace WorkspaceRepository::fromRow(const SqliteStatement &q, int first)
{
    return workspaceFromRow(q, first);
}

bool WorkspaceRepository::insert(const Workspace &w, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO workspaces (%1) VALUES (?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kInsertColumns)),
                     {w.id, workspaceModeName(w.mode), w.hostPath, w.displayName, w.createdAt, w.lastUsedAt,
                      w.trashedAt ? QVariant(w.trashedAt) : QVariant(),
                      w.isManaged() ? QVariant() : QVariant(w.hostDevice),
                      w.isManaged() ? QVariant() : QVariant(w.hostInode)},
                     error, QStringLiteral("cannot record workspace: %1"));
}

bool WorkspaceRepository::removeUnusedManaged(const QString &id, QString &error)
{
    QSqlQuery q(m_db.handle());
    if (!execBound(q, QStringLiteral("DELETE FROM workspaces WHERE id = ? AND mode = 'managed'"
                                     " AND NOT EXISTS (SELECT 1 FROM sandboxes WHERE workspace_id = ?)"),
                   {id, id}, error, QStringLiteral("cannot forget workspace: %1")))
        return false;
    return q.numRowsAffected() == 1;
}

std::optional<Workspace> WorkspaceRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM workspaces WHERE id = ?").arg(QLatin1String(kColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

std::optional<Workspace> WorkspaceRepository::findHost(const QString &hostPath, WorkspaceMode mode) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM workspaces WHERE host_path = ? AND mode = ? AND trashed_at IS NULL")
                  .arg(QLatin1String(kColumns)));
    q.addBindValue(hostPath);
    q.addBindValue(workspaceModeName(mode));
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

QList<Workspace> WorkspaceRepository::list(bool includeTrashed) const
{
    QList<Workspace> out;
    if (!m_db.isOpen())   // the tray lists before the server has opened the database
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM workspaces %2 ORDER BY created_at, id")
               .arg(QLatin1String(kColumns), includeTrashed ? QString() : QStringLiteral("WHERE trashed_at IS NULL")));
    while (q.next())
        out.append(fromRow(q));
    return out;
}

bool WorkspaceRepository::setTimestamp(const char *column, const QString &id, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE workspaces SET %1 = ? WHERE id = ?").arg(QLatin1String(column)),
                     {nowMs, id},
                     error);
}

bool WorkspaceRepository::touch(const QString &id, qint64 nowMs, QString &error)
{
    return setTimestamp("last_used_at", id, nowMs, error);
}

bool WorkspaceRepository::markRevoked(const QString &id, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE workspaces SET revoked_at = ?, trashed_at = ? WHERE id = ? AND mode != 'managed'"));
    q.addBindValue(nowMs);
    q.addBindValue(nowMs);
    q.addBindValue(id);
    if (!q.exec()) {
        error = QStringLiteral("cannot record the revocation: %1").arg(q.lastError().text());
        return false;
    }
    return true;
}

bool WorkspaceRepository::moveToTrash(const QString &id, const QString &trashPath, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE workspaces SET trashed_at = ?, host_path = ? WHERE id = ? AND mode = 'managed'"),
                     {nowMs, trashPath, id},
                     error);
}

bool WorkspaceRepository::updateHostIdentity(const QString &id, qint64 device, qint64 inode, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE workspaces SET host_device = ?, host_inode = ? WHERE id = ? AND mode <> 'managed'"),
                     {device, inode, id},
                     error);
}

QHash<QString, QString> WorkspaceRepository::activeSandboxes() const
{
    QHash<QString, QString> out;
    QSqlQuery q(m_db.handle());
    // Newest first, so a workspace maps to its most recent active sandbox.
    q.exec(QStringLiteral("SELECT workspace_id, id FROM sandboxes WHERE state IN %1 ORDER BY created_at DESC, id")
               .arg(activeSandboxStatesSql()));
    while (q.next()) {
        const QString ws = q.value(0).toString();
        if (!out.contains(ws))
            out.insert(ws, q.value(1).toString());
    }
    return out;
}

QHash<QString, qint64> WorkspaceRepository::lastSandboxEnds() const
{
    QHash<QString, qint64> out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT workspace_id, max(updated_at) FROM sandboxes WHERE state IN ('failed','destroyed')"
                          " GROUP BY workspace_id"));
    while (q.next())
        out.insert(q.value(0).toString(), q.value(1).toLongLong());
    return out;
}

} // namespace chat2sbx
