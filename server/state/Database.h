#pragma once

#include "state/StatementCache.h"

#include <QSqlDatabase>
#include <QString>

namespace chat2sbx {

// The SQLite state database: 0600 file in 0700 directories, WAL, busy timeout, forward-only
// migrations keyed on PRAGMA user_version. One instance per process; all use is on the thread
// that opened it (the event loop thread).
class Database {
public:
    Database();
    ~Database();
    Database(const Database &) = delete;
    Database &operator=(const Database &) = delete;

    // Opens (creating if needed) and migrates. On failure returns false with a one-line error and
    // leaves an existing file as it was when its schema is newer than this build knows.
    bool open(const QString &path, QString &error);
    void close();
    bool isOpen() const;

    QSqlDatabase &handle() { return m_db; }
    // A cached prepared statement for `sql` (see StatementCache): for queries on hot paths.
    StatementCache::Statement prepared(const QString &sql) { return m_statements.prepared(m_db, sql); }
    QString path() const { return m_path; }
    int schemaVersion() const;

    static int latestSchemaVersion();

private:
    bool migrate(QString &error);

    QString m_connectionName;
    QString m_path;
    QSqlDatabase m_db;
    StatementCache m_statements;
};

} // namespace chat2sbx
