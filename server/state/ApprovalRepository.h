#pragma once

#include "state/Approval.h"

#include <QList>
#include <optional>

namespace chat2sbx {

class Database;

// Rows of the approvals table. Every write is committed before it returns. At most one pending
// approval exists per canonical path and mode (a unique partial index enforces it).
class ApprovalRepository {
public:
    explicit ApprovalRepository(Database &db) : m_db(db) {}

    bool insert(const Approval &a, QString &error);
    std::optional<Approval> find(const QString &id) const;
    // The newest approval for this canonical path and mode, whatever its state.
    std::optional<Approval> findLatest(const QString &hostPath, WorkspaceMode mode) const;
    // Oldest first.
    QList<Approval> list(bool pendingOnly) const;
    // Records the decision only while the approval is still pending. Returns 1 when recorded,
    // 0 when it was no longer pending, -1 on a database error.
    int decide(const QString &id, ApprovalState state, qint64 decidedAt, const QString &decidedBy,
               const QString &workspaceId, QString &error);


private:
    // Outlives this: a repository is a member or a local of the database's user.
    Database &m_db;
};

} // namespace chat2sbx
