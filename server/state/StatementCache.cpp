#include "state/StatementCache.h"

#include <QSqlDatabase>

namespace chat2sbx {

StatementCache::Statement StatementCache::prepared(QSqlDatabase &db, const QString &sql)
{
    if (const auto it = m_queries.constFind(sql); it != m_queries.constEnd())
        return Statement(it.value());
    auto query = std::make_shared<QSqlQuery>(db);
    query->setForwardOnly(true);
    if (!query->prepare(sql))
        return Statement(std::move(query));   // not cached: the next use compiles (and reports) again
    m_queries.insert(sql, query);
    return Statement(std::move(query));
}

void StatementCache::clear()
{
    m_queries.clear();
}

} // namespace chat2sbx
