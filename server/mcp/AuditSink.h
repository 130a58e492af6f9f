#pragma once

#include "state/AuditEntry.h"

#include <QString>

namespace chat2sbx {

// Where ToolCallRunner writes one row per finished tools/call. The MCP layer knows no storage:
// the Controller wires an implementation over the audit log (runtime/AuditLogSink.h).
class AuditSink {
public:
    virtual ~AuditSink() = default;
    // False with `error` set when the row could not be stored (the call itself is unaffected).
    virtual bool record(const AuditEntry &entry, QString &error) = 0;
};

} // namespace chat2sbx
