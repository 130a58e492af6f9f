#include "state/AuditLogRepository.h"

#include "state/AuditJournal.h"
#include "state/Database.h"
#include "state/SqlStatement.h"
#include "state/SqliteStatement.h"

#include <QFileInfo>
#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcAuditLog, "chat2sbx.audit.log")

namespace {

const char *const kColumns = "id, at, client, session, tool, sandbox_id, summary, duration_ms, outcome, detail, conversation";

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
    e.conversation = q.value(10).toString();
    return e;
}

} // namespace

AuditEntry AuditLogRepository::bounded(const AuditEntry &entry)
{
    AuditEntry e = entry;
    e.client.truncate(100);
    e.session.truncate(16);
    e.conversation.truncate(128);
    e.tool.truncate(128);
    e.sandboxId.truncate(64);
    e.summary.truncate(kMaxSummary);
    e.outcome.truncate(32);
    e.detail.truncate(kMaxDetail);
    return e;
}

bool AuditLogRepository::insert(const AuditEntry &entry, QString &error)
{
    // Runs for every tools/call, before its answer is sent. In the server the row goes to the
    // journal (one write); straight into the table when there is none or it cannot take the row.
    if (AuditJournal *journal = m_db.auditJournal(); journal && journal->isOpen()) {
        QString journalError;
        if (journal->append(entry, journalError))
            return true;
        qCWarning(lcAuditLog).noquote() << "writing the audit row straight to the database:" << journalError;
    }
    return insertRow("INSERT INTO audit_log (at, client, session, tool, sandbox_id, summary, duration_ms, outcome,"
                     " detail, conversation) VALUES (?,?,?,?,?,?,?,?,?,?)", entry, false, error);
}

bool AuditLogRepository::insertWithId(const AuditEntry &entry, QString &error)
{
    return insertRow("INSERT OR IGNORE INTO audit_log (id, at, client, session, tool, sandbox_id, summary, duration_ms,"
                     " outcome, detail, conversation) VALUES (?,?,?,?,?,?,?,?,?,?,?)", entry, true, error);
}

bool AuditLogRepository::insertRow(const char *sql, const AuditEntry &entry, bool withId, QString &error)
{
    // A cached statement run with SQLite's API, committed when it is done unless a transaction is open.
    SqliteStatement q = m_db.sqlite(sql);
    const AuditEntry e = bounded(entry);
    int i = 0;
    const auto textOrNull = [&q, &i](const QString &s) {   // empty text is stored as NULL
        if (s.isEmpty())
            q.bindNull(i++);
        else
            q.bind(i++, s);
    };
    if (withId)
        q.bind(i++, e.id);
    q.bind(i++, e.at);
    textOrNull(e.client);
    textOrNull(e.session);
    q.bind(i++, e.tool);
    textOrNull(e.sandboxId);
    textOrNull(e.summary);
    q.bind(i++, e.durationMs);
    q.bind(i++, e.outcome);
    textOrNull(e.detail);
    textOrNull(e.conversation);
    q.next();
    if (!q.ok()) {
        error = q.error();
        return false;
    }
    return true;
}

QList<AuditEntry> AuditLogRepository::unfoldedRows() const
{
    if (AuditJournal *journal = m_db.auditJournal(); journal && journal->isOpen()) {
        QString ignored;   // a failed fold warns and retries; the rows stay in the journal
        journal->fold(ignored);
        return {};
    }
    if (m_db.path().isEmpty())
        return {};
    const QString path = AuditJournal::pathFor(m_db.path());
    if (QFileInfo(path).size() <= 0)
        return {};
    return AuditJournal::readUnfolded(path);
}

QList<AuditEntry> AuditLogRepository::recent(int limit) const
{
    QList<AuditEntry> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM audit_log ORDER BY id DESC LIMIT ?").arg(QLatin1String(kColumns)));
    q.addBindValue(limit);
    const QList<AuditEntry> unfolded = unfoldedRows();
    if (!q.exec())
        return out;
    while (q.next())
        out.append(entryOf(q));
    if (unfolded.isEmpty())
        return out;
    // Rows of the server's journal not yet in the table: newer than every row of it.
    QList<AuditEntry> merged;
    for (auto it = unfolded.crbegin(); it != unfolded.crend() && merged.size() < limit; ++it) {
        if (out.isEmpty() || it->id > out.first().id)
            merged.append(*it);
    }
    for (const AuditEntry &e : std::as_const(out)) {
        if (merged.size() >= limit)
            break;
        merged.append(e);
    }
    return merged;
}

AuditLogRepository::Conversations AuditLogRepository::conversationsOf(const QString &sandboxId) const
{
    Conversations out;
    for (const char *order : {"ASC", "DESC"}) {
        // audit_log_by_sandbox (sandbox_id, id) serves both ends.
        QSqlQuery q(m_db.handle());
        q.prepare(QStringLiteral("SELECT conversation FROM audit_log WHERE sandbox_id = ? AND conversation IS NOT NULL "
                                 "ORDER BY id %1 LIMIT 1").arg(QLatin1String(order)));
        q.addBindValue(sandboxId);
        if (q.exec() && q.next())
            (qstrcmp(order, "ASC") == 0 ? out.first : out.last) = q.value(0).toString();
    }
    return out;
}

QList<AuditEntry> AuditLogRepository::find(const AuditQuery &query, QString &error) const
{
    QList<AuditEntry> out;
    const QList<AuditEntry> unfolded = unfoldedRows();
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
    const qint64 newestInTable = out.isEmpty() ? 0 : out.constLast().id;
    for (const AuditEntry &e : unfolded) {
        if (e.id > query.afterId && e.id > newestInTable && e.at >= query.sinceMs
            && (query.sandboxId.isEmpty() || e.sandboxId == query.sandboxId))
            out.append(e);
    }
    while (out.size() > qMax(1, query.limit))
        out.removeFirst();
    return out;
}

int AuditLogRepository::prune(qint64 nowMs, qint64 maxAgeMs, int maxRows, QString &error)
{
    unfoldedRows();   // the server's rows are all in the table before any is counted
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
