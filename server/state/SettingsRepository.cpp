#include "state/SettingsRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

std::optional<QString> SettingsRepository::value(const QString &key) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT value FROM settings WHERE key = ?"));
    q.addBindValue(key);
    if (!q.exec() || !q.next())
        return std::nullopt;
    return q.value(0).toString();
}

bool SettingsRepository::setValue(const QString &key, const QString &value, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q,
                     QStringLiteral("INSERT INTO settings (key, value, updated_at) VALUES (?,?,?) "
                                    "ON CONFLICT(key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at"),
                     {key, value, nowMs}, error, QStringLiteral("database error: %1"));
}

} // namespace chat2sbx
