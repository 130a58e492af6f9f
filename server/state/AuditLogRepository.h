#pragma once

#include "state/AuditEntry.h"

#include <QList>
#include <QString>

namespace chat2sbx {

class Database;

// Which rows to read: newest `limit` rows after `afterId` (0: any) at or after `sinceMs`.
struct AuditQuery {
    QString sandboxId;           // empty: every sandbox
    qint64 sinceMs = 0;
    qint64 afterId = 0;
    int limit = 50;
};

// Rows of audit_log. A row written returns once a kill -9 cannot lose it: in the server, whose
// Database writes audit rows ahead (AuditJournal), once it is in the journal; elsewhere once it is
// committed. Reads see every row written: the server's journal is folded into the table first, and
// other processes (the CLI) add the rows still in it.
class AuditLogRepository {
public:
    explicit AuditLogRepository(Database &db) : m_db(db) {}

    bool insert(const AuditEntry &entry, QString &error);
    // Inserts `entry` with its own id, unless a row has that id already (folding the journal).
    bool insertWithId(const AuditEntry &entry, QString &error);
    // Newest first.
    QList<AuditEntry> recent(int limit) const;
    // The ChatGPT conversations of a sandbox's calls: the first one that named a conversation (the
    // sandbox_create that made it, while that row is kept) and the latest; empty when none did.
    // Rows still in the server's journal count from its next fold (seconds).
    struct Conversations {
        QString first;
        QString last;
    };
    Conversations conversationsOf(const QString &sandboxId) const;
    // Oldest first (the order a log is read in); the newest `query.limit` of the matching rows.
    QList<AuditEntry> find(const AuditQuery &query, QString &error) const;
    // Deletes rows older than `maxAgeMs` before `nowMs` (0: no age limit) and all but the newest
    // `maxRows` (0: no count limit). Returns the number deleted, -1 on error.
    int prune(qint64 nowMs, qint64 maxAgeMs, int maxRows, QString &error);

    static constexpr int kMaxDetail = 300;
    static constexpr int kMaxSummary = 520;
    // `entry` cut to what a row stores.
    static AuditEntry bounded(const AuditEntry &entry);

private:
    bool insertRow(const char *sql, const AuditEntry &entry, bool withId, QString &error);
    // Before a read: the server folds its journal; another process reads the rows still in it.
    QList<AuditEntry> unfoldedRows() const;

    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
