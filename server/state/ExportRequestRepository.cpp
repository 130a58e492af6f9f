#include "state/ExportRequestRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

QString exportRequestStateName(ExportRequestState state)
{
    switch (state) {
    case ExportRequestState::Pending: return QStringLiteral("pending");
    case ExportRequestState::Approved: return QStringLiteral("approved");
    case ExportRequestState::Rejected: return QStringLiteral("rejected");
    case ExportRequestState::Closed: return QStringLiteral("closed");
    }
    return QStringLiteral("pending");
}

bool parseExportRequestState(const QString &text, ExportRequestState &out)
{
    for (const ExportRequestState s : {ExportRequestState::Pending, ExportRequestState::Approved, ExportRequestState::Rejected,
                                       ExportRequestState::Closed}) {
        if (text == exportRequestStateName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

namespace {

const char kExportRequestColumns[] = "id, sandbox_id, path, shown, size, folder, why, client_name, state, requested_at,"
                                     " decided_at, decided_by";

ExportRequest exportRequestOfRow(const QSqlQuery &q)
{
    ExportRequest r;
    r.id = q.value(0).toString();
    r.sandboxId = q.value(1).toString();
    r.path = q.value(2).toString();
    r.shown = q.value(3).toString();
    r.size = q.value(4).toLongLong();
    r.folder = q.value(5).toInt() != 0;
    r.why = q.value(6).toString();
    r.clientName = q.value(7).toString();
    parseExportRequestState(q.value(8).toString(), r.state);
    r.requestedAt = q.value(9).toLongLong();
    r.decidedAt = q.value(10).isNull() ? 0 : q.value(10).toLongLong();
    r.decidedBy = q.value(11).toString();
    return r;
}

} // namespace

bool ExportRequestRepository::insert(const ExportRequest &r, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO export_requests (%1) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)")
                            .arg(QLatin1String(kExportRequestColumns)),
                     {r.id, r.sandboxId, r.path, r.shown, r.size, r.folder ? 1 : 0, r.why, nullIfEmpty(r.clientName),
                      exportRequestStateName(r.state), r.requestedAt, r.decidedAt ? QVariant(r.decidedAt) : QVariant(),
                      nullIfEmpty(r.decidedBy)},
                     error, QStringLiteral("cannot record the export request: %1"));
}

std::optional<ExportRequest> ExportRequestRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM export_requests WHERE id = ?").arg(QLatin1String(kExportRequestColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return exportRequestOfRow(q);
    return std::nullopt;
}

std::optional<ExportRequest> ExportRequestRepository::findOpen(const QString &sandboxId, const QString &path) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM export_requests WHERE sandbox_id = ? AND path = ? AND state != 'closed'"
                             " ORDER BY (state = 'pending') DESC, requested_at DESC, rowid DESC LIMIT 1")
                  .arg(QLatin1String(kExportRequestColumns)));
    q.addBindValue(sandboxId);
    q.addBindValue(path);
    if (q.exec() && q.next())
        return exportRequestOfRow(q);
    return std::nullopt;
}

QList<ExportRequest> ExportRequestRepository::list(bool pendingOnly) const
{
    QList<ExportRequest> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM export_requests %2 ORDER BY requested_at, rowid")
               .arg(QLatin1String(kExportRequestColumns), pendingOnly ? QStringLiteral("WHERE state = 'pending'") : QString()));
    while (q.next())
        out.append(exportRequestOfRow(q));
    return out;
}

int ExportRequestRepository::countPending(const QString &sandboxId) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT COUNT(*) FROM export_requests WHERE state = 'pending'%1")
                  .arg(sandboxId.isEmpty() ? QString() : QStringLiteral(" AND sandbox_id = ?")));
    if (!sandboxId.isEmpty())
        q.addBindValue(sandboxId);
    return q.exec() && q.next() ? q.value(0).toInt() : 0;
}

int ExportRequestRepository::decide(const QString &id, ExportRequestState state, qint64 decidedAt, const QString &decidedBy,
                                    QString &error)
{
    QSqlQuery q(m_db.handle());
    if (!execBound(q, QStringLiteral("UPDATE export_requests SET state = ?, decided_at = ?, decided_by = ?"
                                     " WHERE id = ? AND state = 'pending'"),
                   {exportRequestStateName(state), decidedAt, nullIfEmpty(decidedBy), id}, error,
                   QStringLiteral("cannot record the decision: %1")))
        return -1;
    return q.numRowsAffected() > 0 ? 1 : 0;
}

int ExportRequestRepository::close(const QString &id, QString &error)
{
    QSqlQuery q(m_db.handle());
    if (!execBound(q, QStringLiteral("UPDATE export_requests SET state = 'closed' WHERE id = ? AND state IN ('approved','rejected')"),
                   {id}, error, QStringLiteral("cannot record the export: %1")))
        return -1;
    return q.numRowsAffected() > 0 ? 1 : 0;
}

bool ExportRequestRepository::closeAllOf(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE export_requests SET state = 'closed' WHERE sandbox_id = ? AND state != 'closed'"),
                     {sandboxId}, error, QStringLiteral("cannot close the export requests: %1"));
}

} // namespace chat2sbx
