#include "state/WriteBatch.h"

#include "state/Database.h"

#include <QLoggingCategory>
#include <QSqlError>
#include <QSqlQuery>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcWriteBatch, "chat2sbx.db")

WriteBatch::WriteBatch(Database &db) : m_db(db)
{
    if (!m_db.isOpen() || m_db.inTransaction())
        return;
    QSqlQuery begin(m_db.handle());
    m_began = begin.exec(QStringLiteral("BEGIN"));
}

WriteBatch::~WriteBatch()
{
    if (!m_began)
        return;
    QSqlQuery commit(m_db.handle());
    if (commit.exec(QStringLiteral("COMMIT")))
        return;
    qCWarning(lcWriteBatch).noquote() << "cannot commit a batch of writes:" << commit.lastError().text();
    QSqlQuery rollback(m_db.handle());
    rollback.exec(QStringLiteral("ROLLBACK"));
}

} // namespace chat2sbx
