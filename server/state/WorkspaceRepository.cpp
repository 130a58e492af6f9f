#include "state/WorkspaceRepository.h"

#include "state/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "id, mode, host_path, display_name, created_at, last_used_at, trashed_at";

Workspace fromRow(const QSqlQuery &q)
{
    Workspace w;
    w.id = q.value(0).toString();
    parseWorkspaceMode(q.value(1).toString(), w.mode);
    w.hostPath = q.value(2).toString();
    w.displayName = q.value(3).toString();
    w.createdAt = q.value(4).toLongLong();
    w.lastUsedAt = q.value(5).toLongLong();
    w.trashedAt = q.value(6).isNull() ? 0 : q.value(6).toLongLong();
    return w;
}

} // namespace

bool WorkspaceRepository::insert(const Workspace &w, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO workspaces (%1) VALUES (?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)));
    q.addBindValue(w.id);
    q.addBindValue(workspaceModeName(w.mode));
    q.addBindValue(w.hostPath);
    q.addBindValue(w.displayName);
    q.addBindValue(w.createdAt);
    q.addBindValue(w.lastUsedAt);
    q.addBindValue(w.trashedAt ? QVariant(w.trashedAt) : QVariant());
    if (!q.exec()) {
        error = QStringLiteral("cannot record workspace: %1").arg(q.lastError().text());
        return false;
    }
    return true;
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
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM workspaces %2 ORDER BY created_at, id")
               .arg(QLatin1String(kColumns), includeTrashed ? QString() : QStringLiteral("WHERE trashed_at IS NULL")));
    while (q.next())
        out.append(fromRow(q));
    return out;
}

bool WorkspaceRepository::touch(const QString &id, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE workspaces SET last_used_at = ? WHERE id = ?"));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    if (!q.exec()) {
        error = q.lastError().text();
        return false;
    }
    return true;
}

bool WorkspaceRepository::markTrashed(const QString &id, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE workspaces SET trashed_at = ? WHERE id = ?"));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    if (!q.exec()) {
        error = q.lastError().text();
        return false;
    }
    return true;
}

} // namespace chat2sbx
