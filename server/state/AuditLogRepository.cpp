#include "state/AuditLogRepository.h"

#include "state/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

bool AuditLogRepository::insert(const AuditEntry &entry, QString &error)
{
    // Cached: this runs for every tools/call, before its answer is sent (a kill -9 cannot lose the row).
    auto st = m_db.prepared(
        QStringLiteral("INSERT INTO audit_log (at, tool, sandbox_id, duration_ms, outcome, detail) VALUES (?,?,?,?,?,?)"));
    QSqlQuery &q = st.query();
    q.bindValue(0, entry.at);
    q.bindValue(1, entry.tool.left(128));
    q.bindValue(2, entry.sandboxId.isEmpty() ? QVariant() : QVariant(entry.sandboxId.left(64)));
    q.bindValue(3, entry.durationMs);
    q.bindValue(4, entry.outcome);
    q.bindValue(5, entry.detail.isEmpty() ? QVariant() : QVariant(entry.detail.left(kMaxDetail)));
    if (!q.exec()) {
        error = q.lastError().text();
        return false;
    }
    return true;
}

QList<AuditEntry> AuditLogRepository::recent(int limit) const
{
    QList<AuditEntry> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT id, at, tool, sandbox_id, duration_ms, outcome, detail FROM audit_log ORDER BY id DESC LIMIT ?"));
    q.addBindValue(limit);
    if (!q.exec())
        return out;
    while (q.next()) {
        AuditEntry e;
        e.id = q.value(0).toLongLong();
        e.at = q.value(1).toLongLong();
        e.tool = q.value(2).toString();
        e.sandboxId = q.value(3).toString();
        e.durationMs = q.value(4).toLongLong();
        e.outcome = q.value(5).toString();
        e.detail = q.value(6).toString();
        out.append(e);
    }
    return out;
}

} // namespace chat2sbx
