#pragma once

#include <QStringList>
#include <QList>

namespace chat2sbx {

// The ordered, forward-only schema history. Migration N (1-based) moves user_version from N-1 to N.
// Never edit a released migration: append a new one.
const QList<QStringList> &schemaMigrations();

} // namespace chat2sbx
