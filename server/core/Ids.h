#pragma once

#include <QString>

namespace chat2sbx {

// Stable public identifiers: prefix + 24 lowercase hex characters from a cryptographic source.
// e.g. newId("sbx_") -> "sbx_3f9c0a...".
QString newId(const char *prefix);
QString randomHex(int bytes);

// True when `id` is `prefix` followed by 24 lowercase hex characters.
bool isWellFormedId(const QString &id, const char *prefix);

} // namespace chat2sbx
