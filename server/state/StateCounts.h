#pragma once

#include <QString>

namespace chat2sbx {

class Database;

// The counts `chat2sbx status` shows, read from the database of a server that does not answer.
// -1: unknown.
struct StateCounts {
    qint64 activeSandboxes = -1;    // isActiveSandboxState: creating, running, stopped or destroying
    qint64 warmSandboxes = -1;      // ready to hand over
    qint64 pendingApprovals = -1;

    // Opens `databasePath` read-only (nothing is created or migrated); all -1 when it cannot.
    static StateCounts readOnly(const QString &databasePath);
    static StateCounts read(Database &db);
};

} // namespace chat2sbx
