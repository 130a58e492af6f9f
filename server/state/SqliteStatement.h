#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>

struct sqlite3;
struct sqlite3_stmt;

namespace chat2sbx {

// Prepared statements run with SQLite's own API on the Database's connection, for the two
// statements every tools/call or sandbox_list runs (the audit row, the sandbox list). QtSql's
// QSqlQuery rebuilds a QSqlRecord of every result column on each exec and converts every value
// through QVariant; for these statements that cost as much as SQLite's work itself. Same
// connection, same transactions and busy timeout as QtSql's statements.
class SqliteStatement {
public:
    // One value of the current row, read the way QVariant would convert it.
    class Cell {
    public:
        Cell(sqlite3_stmt *statement, int column) : m_statement(statement), m_column(column) {}
        bool isNull() const;
        QString toString() const;
        qint64 toLongLong() const;
        int toInt() const { return static_cast<int>(toLongLong()); }

    private:
        sqlite3_stmt *m_statement;
        int m_column;
    };

    SqliteStatement(sqlite3 *db, sqlite3_stmt *statement) : m_db(db), m_statement(statement) {}
    // Resets the statement and clears its bindings: a SELECT holds no read transaction afterwards.
    ~SqliteStatement();
    SqliteStatement(SqliteStatement &&other) noexcept;
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;
    SqliteStatement &operator=(SqliteStatement &&) = delete;

    // False when the SQL did not compile (or there is no connection): error() says why.
    bool isValid() const { return m_statement != nullptr; }
    // Parameters count from 0, as QSqlQuery::bindValue's do.
    void bind(int index, qint64 value);
    void bind(int index, const QString &value);   // a null QString binds NULL
    void bindNull(int index);
    // Runs the statement to the first row (true) or to its end (false, also on error: see ok()).
    bool next();
    bool ok() const { return m_ok; }
    QString error() const;
    Cell value(int column) const { return Cell(m_statement, column); }

private:
    sqlite3 *m_db;
    sqlite3_stmt *m_statement;
    bool m_ok = true;
};

// The compiled statements of one connection, kept until it closes.
class SqliteStatementCache {
public:
    SqliteStatementCache() = default;
    ~SqliteStatementCache() { clear(); }
    SqliteStatementCache(const SqliteStatementCache &) = delete;
    SqliteStatementCache &operator=(const SqliteStatementCache &) = delete;

    // `db` null: every statement is invalid (the database is not open).
    SqliteStatement prepared(sqlite3 *db, const char *sql);
    void clear();

private:
    QHash<QByteArray, sqlite3_stmt *> m_statements;
};

} // namespace chat2sbx
