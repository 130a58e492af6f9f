#pragma once

#include "state/SqliteStatement.h"
#include "state/StatementCache.h"
#include "state/WalCheckpointer.h"

#include <QSqlDatabase>
#include <QString>

#include <memory>

namespace chat2sbx {

class AuditJournal;

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
    // Opens an existing database read-only, without migrating or creating anything (what
    // `chat2sbx status` reads when no server answers). False with a one-line error otherwise.
    bool openReadOnly(const QString &path, QString &error);
    void close();
    bool isOpen() const;

    QSqlDatabase &handle() { return m_db; }
    // A cached prepared statement for `sql` (see StatementCache): for queries on hot paths.
    StatementCache::Statement prepared(const QString &sql) { return m_statements.prepared(m_db, sql); }
    // The same, run with SQLite's API (SqliteStatement.h): for the statements of every tools/call.
    SqliteStatement sqlite(const char *sql) { return m_sqliteStatements.prepared(m_sqlite, sql); }
    // How long a statement waits for another process's lock before it fails with "database is
    // locked" (default 5,000 ms, right for the CLI). The server sets a short wait after opening, so
    // a process holding the database locked cannot stall its event loop: writes fail fast with that
    // error, and the loop keeps answering.
    void setBusyTimeout(int ms);
    int busyTimeout() const { return m_busyTimeoutMs; }
    static constexpr int kServerBusyTimeoutMs = 200;
    // The server's commits leave the WAL checkpoint (copy and fsync) to a thread of its own
    // (WalCheckpointer); the CLI's short-lived connections keep SQLite's automatic checkpoint.
    bool checkpointInBackground(QString &error);
    bool isCheckpointingInBackground() const { return m_checkpointer.isRunning(); }
    int backgroundCheckpoints() const { return m_checkpointer.checkpoints(); }
    // The server (holding its lock) writes audit rows ahead of the table (AuditJournal); this also
    // folds in what a previous server left there. False with an error: rows go straight to the table.
    bool writeAuditRowsAhead(QString &error);
    AuditJournal *auditJournal() const { return m_auditJournal.get(); }
    // A transaction is open on this connection (SQLite is not in autocommit mode).
    bool inTransaction() const;
    // Counts the statements this connection runs from now on (SQLite's statement trace): what tests
    // use to prove that a code path's work is bounded. Off by default; costs nothing then.
    void countStatements(bool on);
    qint64 statementsRun() const { return m_statementsRun; }

    // For polls that can simply try again later: no waiting at all while it lives.
    class NoWaitScope {
    public:
        explicit NoWaitScope(Database &db) : m_db(db), m_saved(db.busyTimeout()) { m_db.setBusyTimeout(0); }
        ~NoWaitScope() { m_db.setBusyTimeout(m_saved); }
        NoWaitScope(const NoWaitScope &) = delete;
        NoWaitScope &operator=(const NoWaitScope &) = delete;

    private:
        // A scope on the stack of a Database user.
        Database &m_db;
        int m_saved;
    };
    QString path() const { return m_path; }
    int schemaVersion() const;

    static int latestSchemaVersion();

private:
    bool migrate(QString &error);
    bool migrateLocked(QString &error);

    QString m_connectionName;
    QString m_path;
    QSqlDatabase m_db;
    StatementCache m_statements;
    sqlite3 *m_sqlite = nullptr;   // m_db's connection
    SqliteStatementCache m_sqliteStatements;
    WalCheckpointer m_checkpointer;
    std::unique_ptr<AuditJournal> m_auditJournal;
    int m_busyTimeoutMs = 5000;
    qint64 m_statementsRun = 0;
};

} // namespace chat2sbx
