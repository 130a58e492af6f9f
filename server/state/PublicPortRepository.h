#pragma once

#include "state/PublicPortRequest.h"

#include <QList>

#include <optional>

namespace chat2sbx {

class Database;

// Rows of the public_port_requests table. Every write is committed before it returns. At most one
// live request (pending, approved or published) exists per sandbox and port (a unique partial index).
class PublicPortRepository {
public:
    explicit PublicPortRepository(Database &db) : m_db(db) {}

    bool insert(const PublicPortRequest &r, QString &error);
    std::optional<PublicPortRequest> find(const QString &id) const;
    // The newest request for this sandbox and port: the live one if there is one.
    std::optional<PublicPortRequest> findLatest(const QString &sandboxId, int port) const;
    QList<PublicPortRequest> list(bool pendingOnly) const;   // oldest first
    QList<PublicPortRequest> published(const QString &sandboxId) const;
    QList<PublicPortRequest> live() const;   // pending, approved or published
    int countPending() const;
    // Moves the request from `from` to `to` (with the URL or error, and who decided when leaving
    // pending): 1 moved, 0 it was not in `from`, -1 error.
    int move(const QString &id, PublicPortState from, PublicPortState to, qint64 at, const QString &decidedBy, const QString &url,
             const QString &failure, QString &error);
    // A destroyed sandbox: nothing of it stays pending or published.
    bool closeAllOf(const QString &sandboxId, QString &error);

private:
    Database &m_db;
};

} // namespace chat2sbx
