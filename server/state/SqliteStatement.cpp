#include "state/SqliteStatement.h"

#include <sqlite3.h>

namespace chat2sbx {

bool SqliteStatement::Cell::isNull() const
{
    return sqlite3_column_type(m_statement, m_column) == SQLITE_NULL;
}

QString SqliteStatement::Cell::toString() const
{
    // Text is stored as UTF-8 (the database's encoding); numbers are converted by SQLite.
    const auto *text = reinterpret_cast<const char *>(sqlite3_column_text(m_statement, m_column));
    if (!text)
        return QString();
    return QString::fromUtf8(text, sqlite3_column_bytes(m_statement, m_column));
}

qint64 SqliteStatement::Cell::toLongLong() const
{
    return sqlite3_column_int64(m_statement, m_column);
}

SqliteStatement::~SqliteStatement()
{
    if (m_statement) {
        sqlite3_reset(m_statement);
        sqlite3_clear_bindings(m_statement);
    }
}

SqliteStatement::SqliteStatement(SqliteStatement &&other) noexcept
    : m_db(other.m_db), m_statement(other.m_statement), m_ok(other.m_ok)
{
    other.m_statement = nullptr;
}

void SqliteStatement::bind(int index, qint64 value)
{
    if (m_statement)
        sqlite3_bind_int64(m_statement, index + 1, value);
}

void SqliteStatement::bind(int index, const QString &value)
{
    if (!m_statement)
        return;
    if (value.isNull()) {
        sqlite3_bind_null(m_statement, index + 1);
        return;
    }
    const QByteArray utf8 = value.toUtf8();
    sqlite3_bind_text(m_statement, index + 1, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
}

void SqliteStatement::bindNull(int index)
{
    if (m_statement)
        sqlite3_bind_null(m_statement, index + 1);
}

bool SqliteStatement::next()
{
    if (!m_statement) {
        m_ok = false;
        return false;
    }
    const int rc = sqlite3_step(m_statement);
    if (rc == SQLITE_ROW)
        return true;
    m_ok = rc == SQLITE_DONE;
    return false;
}

QString SqliteStatement::error() const
{
    if (!m_db)
        return QStringLiteral("the database is not open");
    return QString::fromUtf8(sqlite3_errmsg(m_db));
}

SqliteStatement SqliteStatementCache::prepared(sqlite3 *db, const char *sql)
{
    if (!db)
        return SqliteStatement(nullptr, nullptr);
    const QByteArray key(sql);
    if (const auto it = m_statements.constFind(key); it != m_statements.cend())
        return SqliteStatement(db, it.value());
    sqlite3_stmt *statement = nullptr;
    if (sqlite3_prepare_v3(db, key.constData(), int(key.size()), SQLITE_PREPARE_PERSISTENT, &statement, nullptr) != SQLITE_OK) {
        sqlite3_finalize(statement);
        return SqliteStatement(db, nullptr);   // not cached: the next use compiles (and reports) again
    }
    m_statements.insert(key, statement);
    return SqliteStatement(db, statement);
}

void SqliteStatementCache::clear()
{
    for (sqlite3_stmt *s : std::as_const(m_statements))
        sqlite3_finalize(s);
    m_statements.clear();
}

} // namespace chat2sbx
