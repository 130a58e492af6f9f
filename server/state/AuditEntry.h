#pragma once

#include <QString>

namespace chat2sbx {

// One finished tools/call. outcome: ok | error | invalid | cancelled.
struct AuditEntry {
    qint64 id = 0;
    qint64 at = 0;               // ms since epoch, when the call started
    QString client;              // the MCP client's name from initialize (may be empty)
    QString session;             // short MCP session id
    QString tool;
    QString sandboxId;           // from the arguments, when present
    QString summary;             // one line about the arguments (AuditSummary); never content or secrets
    qint64 durationMs = 0;
    QString outcome;
    QString detail;              // the error text; never a token or host data path
};

} // namespace chat2sbx
