#pragma once

#include <QSqlQuery>
#include <QString>
#include <QVariantList>

namespace chat2sbx {

// The repositories' shared statement plumbing.

// Executes the prepared q. On failure `error` is `errorFormat` with %1 replaced by the driver's text.
bool execOrReport(QSqlQuery &q, QString &error, const QString &errorFormat = QStringLiteral("%1"));

// Prepares `sql` on q, binds `values` in order and executes it, reporting like execOrReport.
bool execBound(QSqlQuery &q, const QString &sql, const QVariantList &values, QString &error,
               const QString &errorFormat = QStringLiteral("%1"));

// NULL for an empty text column.
QVariant nullIfEmpty(const QString &text);

} // namespace chat2sbx
