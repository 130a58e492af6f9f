#include "state/SqlStatement.h"

#include <QSqlError>

namespace chat2sbx {

bool execOrReport(QSqlQuery &q, QString &error, const QString &errorFormat)
{
    if (q.exec())
        return true;
    error = errorFormat.arg(q.lastError().text().trimmed());
    return false;
}

bool execBound(QSqlQuery &q, const QString &sql, const QVariantList &values, QString &error, const QString &errorFormat)
{
    if (!q.prepare(sql)) {
        error = errorFormat.arg(q.lastError().text().trimmed());
        return false;
    }
    for (const QVariant &v : values)
        q.addBindValue(v);
    return execOrReport(q, error, errorFormat);
}

QVariant nullIfEmpty(const QString &text)
{
    return text.isEmpty() ? QVariant() : QVariant(text);
}

} // namespace chat2sbx
