#pragma once

#include <QString>

#include <optional>

namespace chat2sbx {

// The user's global instructions file (Config::agentsFilePath()), handed to agents by sandbox_create
// and sandbox_get. Absent: true with `text` empty. A symlink, a non-regular file, an oversized or
// unreadable one: false with a readable error that does not show the data-directory path.
bool readGlobalAgentsFile(const QString &path, std::optional<QString> &text, QString &error);

} // namespace chat2sbx
