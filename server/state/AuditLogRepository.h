#pragma once

#include <QList>
#include <QString>

namespace chat2sbx {

class Database;

// One finished tools/call. outcome: ok | error | invalid | cancelled.
struct AuditEntry {
    qint64 id = 0;
    qint64 at = 0;               // ms since epoch, when the call started
    QString tool;
    QString sandboxId;           // from the arguments, when present
    qint64 durationMs = 0;
    QString outcome;
    QString detail;              // short, never a token or host data path
};

// Rows of audit_log. Every write is committed before it returns.
class AuditLogRepository {
public:
    explicit AuditLogRepository(Database &db) : m_db(db) {}

    bool insert(const AuditEntry &entry, QString &error);
    // Newest first.
    QList<AuditEntry> recent(int limit) const;

    static constexpr int kMaxDetail = 300;

private:
    Database &m_db;
};

} // namespace chat2sbx
