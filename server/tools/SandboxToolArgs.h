#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

namespace chat2sbx {

// "512m", "4g", "1048576k": digits then k/m/g (case-insensitive), from 512m to 32g. On success
// `normalized` is the lower-case form sbx gets; otherwise `error` names the value and the rule.
bool parseMemoryArgument(const QString &value, QString &normalized, QString &error);

// The global instructions file (Config::agentsFilePath()). Absent: true with `text` empty. A symlink,
// a non-regular file, an oversized or unreadable one: false with a readable error that does not show
// the data-directory path.
bool readGlobalAgentsFile(const QString &path, std::optional<QString> &text, QString &error);

// Rejects properties outside `allowed` (the schema says additionalProperties false; never trust that
// the caller checked). Returns false with `error` naming the first unexpected one.
bool onlyKnownArguments(const QJsonObject &args, const QStringList &allowed, QString &error);

} // namespace chat2sbx
