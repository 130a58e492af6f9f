#include "state/ApprovalRepository.h"

#include "state/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "id, host_path, mode, state, display_name, requested_at, decided_at, decided_by, workspace_id,"
                        " host_device, host_inode";

Approval fromRow(const QSqlQuery &q)
{
    Approval a;
    a.id = q.value(0).toString();
    a.hostPath = q.value(1).toString();
    parseWorkspaceMode(q.value(2).toString(), a.mode);
    parseApprovalState(q.value(3).toString(), a.state);
    a.displayName = q.value(4).toString();
    a.requestedAt = q.value(5).toLongLong();
    a.decidedAt = q.value(6).isNull() ? 0 : q.value(6).toLongLong();
    a.decidedBy = q.value(7).toString();
    a.workspaceId = q.value(8).toString();
    a.hostDevice = q.value(9).toLongLong();
    a.hostInode = q.value(10).toLongLong();
    return a;
}

QVariant textOrNull(const QString &s)
{
    return s.isEmpty() ? QVariant() : QVariant(s);
}

} // namespace

bool ApprovalRepository::insert(const Approval &a, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO approvals (%1) VALUES (?,?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)));
    q.addBindValue(a.id);
    q.addBindValue(a.hostPath);
    q.addBindValue(workspaceModeName(a.mode));
    q.addBindValue(approvalStateName(a.state));
    q.addBindValue(a.displayName);
    q.addBindValue(a.requestedAt);
    q.addBindValue(a.decidedAt ? QVariant(a.decidedAt) : QVariant());
    q.addBindValue(textOrNull(a.decidedBy));
    q.addBindValue(textOrNull(a.workspaceId));
    q.addBindValue(a.hostDevice);
    q.addBindValue(a.hostInode);
    if (!q.exec()) {
        error = QStringLiteral("cannot record approval: %1").arg(q.lastError().text());
        return false;
    }
    return true;
}

std::optional<Approval> ApprovalRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM approvals WHERE id = ?").arg(QLatin1String(kColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

std::optional<Approval> ApprovalRepository::findLatest(const QString &hostPath, WorkspaceMode mode) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM approvals WHERE host_path = ? AND mode = ?"
                             " ORDER BY (state = 'pending') DESC, requested_at DESC, rowid DESC LIMIT 1")
                  .arg(QLatin1String(kColumns)));
    q.addBindValue(hostPath);
    q.addBindValue(workspaceModeName(mode));
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

QList<Approval> ApprovalRepository::list(bool pendingOnly) const
{
    QList<Approval> out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM approvals %2 ORDER BY requested_at, rowid")
               .arg(QLatin1String(kColumns), pendingOnly ? QStringLiteral("WHERE state = 'pending'") : QString()));
    while (q.next())
        out.append(fromRow(q));
    return out;
}

int ApprovalRepository::decide(const QString &id, ApprovalState state, qint64 decidedAt, const QString &decidedBy,
                               const QString &workspaceId, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE approvals SET state = ?, decided_at = ?, decided_by = ?, workspace_id = ?"
                             " WHERE id = ? AND state = 'pending'"));
    q.addBindValue(approvalStateName(state));
    q.addBindValue(decidedAt);
    q.addBindValue(textOrNull(decidedBy));
    q.addBindValue(textOrNull(workspaceId));
    q.addBindValue(id);
    if (!q.exec()) {
        error = QStringLiteral("cannot record the decision: %1").arg(q.lastError().text());
        return -1;
    }
    return q.numRowsAffected() > 0 ? 1 : 0;
}

qint64 ApprovalRepository::externalChangeCounter() const
{
    // Polled every second: when another process holds the database, skip this round rather than wait.
    Database::NoWaitScope noWait(m_db);
    QSqlQuery q(m_db.handle());
    if (!q.exec(QStringLiteral("PRAGMA data_version")) || !q.next())
        return -1;
    return q.value(0).toLongLong();
}

} // namespace chat2sbx
