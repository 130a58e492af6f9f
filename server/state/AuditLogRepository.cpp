#include "state/AuditLogRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"
#include "state/SqliteStatement.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

namespace {

const char *const kColumns = "id, at, client, session, tool, sandbox_id, summary, duration_ms, outcome, detail";

AuditEntry entryOf(const QSqlQuery &q)
{
    AuditEntry e;
    e.id = q.value(0).toLongLong();
    e.at = q.value(1).toLongLong();
    e.client = q.value(2).toString();
    e.session = q.value(3).toString();
    e.tool = q.value(4).toString();
    e.sandboxId = q.value(5).toString();
    e.summary = q.value(6).toString();
    e.durationMs = q.value(7).toLongLong();
    e.outcome = q.value(8).toString();
    e.detail = q.value(9).toString();
    return e;
}

} // namespace

bool AuditLogRepository::insert(const AuditEntry &entry, QString &error)
{
    // Runs for every tools/call, before its answer is sent (a kill -9 cannot lose the row): a cached
    // statement run with SQLite's API, committed when it is done (autocommit).
    SqliteStatement q = m_db.sqlite("INSERT INTO audit_log (at, client, session, tool, sandbox_id, summary, "
                                    "duration_ms, outcome, detail) VALUES (?,?,?,?,?,?,?,?,?)");
    const auto textOrNull = [&q](int index, const QString &s, int max) {   // empty text is stored as NULL
        if (s.isEmpty())
            q.bindNull(index);
        else
            q.bind(index, s.left(max));
    };
    q.bind(0, entry.at);
    textOrNull(1, entry.client, 100);
    textOrNull(2, entry.session, 16);
    q.bind(3, entry.tool.left(128));
    textOrNull(4, entry.sandboxId, 64);
    textOrNull(5, entry.summary, kMaxSummary);
    q.bind(6, entry.durationMs);
    q.bind(7, entry.outcome);
    textOrNull(8, entry.detail, kMaxDetail);
    q.next();
    if (!q.ok()) {
        error = q.error();
        return false;
    }
    return true;
}

QList<AuditEntry> AuditLogRepository::recent(int limit) const
{
    QList<AuditEntry> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM audit_log ORDER BY id DESC LIMIT ?").arg(QLatin1String(kColumns)));
    q.addBindValue(limit);
    if (!q.exec())
        return out;
    while (q.next())
        out.append(entryOf(q));
    return out;
}

QList<AuditEntry> AuditLogRepository::find(const AuditQuery &query, QString &error) const
{
    QList<AuditEntry> out;
    QString sql = QStringLiteral("SELECT %1 FROM audit_log WHERE id > ? AND at >= ?").arg(QLatin1String(kColumns));
    if (!query.sandboxId.isEmpty())
        sql += QStringLiteral(" AND sandbox_id = ?");
    sql += QStringLiteral(" ORDER BY id DESC LIMIT ?");
    QSqlQuery q(m_db.handle());
    q.prepare(sql);
    q.addBindValue(query.afterId);
    q.addBindValue(query.sinceMs);
    if (!query.sandboxId.isEmpty())
        q.addBindValue(query.sandboxId);
    q.addBindValue(qMax(1, query.limit));
    if (!q.exec()) {
        error = q.lastError().text();
        return out;
    }
    while (q.next())
        out.prepend(entryOf(q));
    return out;
}

int AuditLogRepository::prune(qint64 nowMs, qint64 maxAgeMs, int maxRows, QString &error)
{
    int deleted = 0;
    QSqlQuery q(m_db.handle());
    if (maxAgeMs > 0) {
        q.prepare(QStringLiteral("DELETE FROM audit_log WHERE at < ?"));
        q.addBindValue(nowMs - maxAgeMs);
        if (!q.exec()) {
            error = q.lastError().text();
            return -1;
        }
        deleted += q.numRowsAffected();
    }
    if (maxRows > 0) {
        // Ids only grow: everything below the maxRows-th newest id goes.
        q.prepare(QStringLiteral("DELETE FROM audit_log WHERE id <= (SELECT id FROM audit_log ORDER BY id DESC LIMIT 1 OFFSET ?)"));
        q.addBindValue(maxRows);
        if (!q.exec()) {
            error = q.lastError().text();
            return -1;
        }
        deleted += q.numRowsAffected();
    }
    return deleted;
}

} // namespace chat2sbx
