#pragma once

#include <QString>

namespace chat2sbx {

// The memory argument of sandbox_create: "512m", "4g", "1048576k": digits then k/m/g
// (case-insensitive), from 512m to 32g. On success `normalized` is the lower-case form sbx gets;
// otherwise `error` names the value and the rule. The range across units is more than the tool's
// schema can say, so this is the one check of it.
bool parseMemoryArgument(const QString &value, QString &normalized, QString &error);

} // namespace chat2sbx
