#pragma once

#include <QHash>
#include <QSqlQuery>
#include <QString>

#include <memory>

class QSqlDatabase;

namespace chat2sbx {

// Prepared statements kept for the life of the connection, so a hot path (the audit row of every
// tools/call, the sandbox list) binds and steps a statement instead of compiling its SQL each time.
// Use through Statement: it finishes the query when it goes out of scope, so a cached SELECT never
// holds a read transaction open (WAL checkpoints and other connections' writes are not held back).
class StatementCache {
public:
    class Statement {
    public:
        explicit Statement(std::shared_ptr<QSqlQuery> query) : m_query(std::move(query)) {}
        ~Statement()
        {
            if (m_query)
                m_query->finish();
        }
        Statement(Statement &&other) noexcept = default;
        Statement(const Statement &) = delete;
        Statement &operator=(const Statement &) = delete;
        Statement &operator=(Statement &&) = delete;

        // A statement whose SQL did not compile fails its exec() with the compiler's error.
        QSqlQuery &query() { return *m_query; }
        QSqlQuery *operator->() { return m_query.get(); }

    private:
        std::shared_ptr<QSqlQuery> m_query;
    };

    StatementCache() = default;
    StatementCache(const StatementCache &) = delete;
    StatementCache &operator=(const StatementCache &) = delete;

    // The prepared statement for `sql` on `db` (compiled on first use). Its bound values are those
    // of the previous use until the caller binds new ones.
    Statement prepared(QSqlDatabase &db, const QString &sql);
    // Drops every statement (before the connection closes).
    void clear();
    int size() const { return static_cast<int>(m_queries.size()); }

private:
    QHash<QString, std::shared_ptr<QSqlQuery>> m_queries;
};

} // namespace chat2sbx
