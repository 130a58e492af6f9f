#pragma once

#include "state/NetworkRequest.h"

#include <QList>
#include <optional>

namespace chat2sbx {

class Database;

// Rows of network_requests and network_rules. Every write is committed before it returns.
class NetworkRepository {
public:
    explicit NetworkRepository(Database &db) : m_db(db) {}

    bool insert(const NetworkRequest &r, QString &error);
    std::optional<NetworkRequest> find(const QString &id) const;
    QList<NetworkRequest> list(bool pendingOnly) const;     // oldest first
    // Records the decision only while pending: 1 recorded, 0 no longer pending, -1 error.
    int decide(const QString &id, NetworkRequestState state, bool always, qint64 at, const QString &by, QString &error);

    bool addRules(const QList<NetworkRule> &rules, QString &error);
    QList<NetworkRule> rules() const;
    bool removeRule(qint64 id, QString &error);
    bool removeRulesOfRequest(const QString &requestId, QString &error);

private:
    Database &m_db;
};

} // namespace chat2sbx
