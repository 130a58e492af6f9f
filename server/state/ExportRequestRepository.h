#pragma once

#include "state/ExportRequest.h"

#include <QList>

#include <optional>

namespace chat2sbx {

class Database;

// Rows of the export_requests table. Every write is committed before it returns. At most one
// pending request exists per sandbox and path (a unique partial index enforces it).
class ExportRequestRepository {
public:
    explicit ExportRequestRepository(Database &db) : m_db(db) {}

    bool insert(const ExportRequest &r, QString &error);
    std::optional<ExportRequest> find(const QString &id) const;
    // The newest request for this sandbox and path that is not closed.
    std::optional<ExportRequest> findOpen(const QString &sandboxId, const QString &path) const;
    QList<ExportRequest> list(bool pendingOnly) const;   // oldest first
    int countPending(const QString &sandboxId = {}) const;
    // Records the decision only while the request is pending: 1 recorded, 0 not pending, -1 error.
    int decide(const QString &id, ExportRequestState state, qint64 decidedAt, const QString &decidedBy, QString &error);
    // approved or rejected → closed: 1 closed, 0 not open (another call took it), -1 error.
    int close(const QString &id, QString &error);
    // Requests of a destroyed sandbox: pending ones are closed, nothing waits for them any more.
    bool closeAllOf(const QString &sandboxId, QString &error);


private:
    Database &m_db;
};

} // namespace chat2sbx
