#pragma once

#include "mcp/AuditSink.h"
#include "state/AuditLogRepository.h"

namespace chat2sbx {

// The tool calls' audit rows go to the audit_log table. Lives here, at the top floor, because it
// joins an interface of mcp/ to a repository of state/, which may not include mcp/.
class AuditLogSink : public AuditSink {
public:
    explicit AuditLogSink(Database &db) : m_repository(db) {}
    bool record(const AuditEntry &entry, QString &error) override { return m_repository.insert(entry, error); }

private:
    AuditLogRepository m_repository;
};

} // namespace chat2sbx
