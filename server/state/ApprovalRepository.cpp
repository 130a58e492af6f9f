#include "state/ApprovalRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "id, host_path, mode, state, display_name, requested_at, decided_at, decided_by, workspace_id,"
                        " host_device, host_inode, reason, client_name";

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
    a.reason = q.value(11).toString();
    a.clientName = q.value(12).toString();
    return a;
}

} // namespace

bool ApprovalRepository::insert(const Approval &a, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO approvals (%1) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)),
                     {a.id, a.hostPath, workspaceModeName(a.mode), approvalStateName(a.state), a.displayName,
                      a.requestedAt, a.decidedAt ? QVariant(a.decidedAt) : QVariant(), nullIfEmpty(a.decidedBy),
                      nullIfEmpty(a.workspaceId), a.hostDevice, a.hostInode, nullIfEmpty(a.reason), nullIfEmpty(a.clientName)},
                     error, QStringLiteral("cannot record approval: %1"));
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
    if (!m_db.isOpen())
        return out;   // the tray reads before the server opened the database
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
    q.addBindValue(nullIfEmpty(decidedBy));
    q.addBindValue(nullIfEmpty(workspaceId));
    q.addBindValue(id);
    if (!q.exec()) {
        error = QStringLiteral("cannot record the decision: %1").arg(q.lastError().text());
        return -1;
    }
    return q.numRowsAffected() > 0 ? 1 : 0;
}

} // namespace chat2sbx
