#include "state/NetworkRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "id, sandbox_id, hosts, reason, client_name, state, always, requested_at, decided_at, decided_by";

NetworkRequest fromRow(const QSqlQuery &q)
{
    NetworkRequest r;
    r.id = q.value(0).toString();
    r.sandboxId = q.value(1).toString();
    r.hosts = q.value(2).toString().split(QLatin1Char(','), Qt::SkipEmptyParts);
    r.reason = q.value(3).toString();
    r.clientName = q.value(4).toString();
    parseNetworkRequestState(q.value(5).toString(), r.state);
    r.always = q.value(6).toInt() != 0;
    r.requestedAt = q.value(7).toLongLong();
    r.decidedAt = q.value(8).isNull() ? 0 : q.value(8).toLongLong();
    r.decidedBy = q.value(9).toString();
    return r;
}

} // namespace

bool NetworkRepository::insert(const NetworkRequest &r, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO network_requests (%1) VALUES (?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)),
                     {r.id, r.sandboxId, r.hosts.join(QLatin1Char(',')), nullIfEmpty(r.reason), nullIfEmpty(r.clientName),
                      networkRequestStateName(r.state), r.always ? 1 : 0, r.requestedAt,
                      r.decidedAt ? QVariant(r.decidedAt) : QVariant(), nullIfEmpty(r.decidedBy)},
                     error, QStringLiteral("cannot record the network request: %1"));
}

std::optional<NetworkRequest> NetworkRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM network_requests WHERE id = ?").arg(QLatin1String(kColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

QList<NetworkRequest> NetworkRepository::list(bool pendingOnly) const
{
    QList<NetworkRequest> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM network_requests %2 ORDER BY requested_at, rowid")
               .arg(QLatin1String(kColumns), pendingOnly ? QStringLiteral("WHERE state = 'pending'") : QString()));
    while (q.next())
        out.append(fromRow(q));
    return out;
}

int NetworkRepository::decide(const QString &id, NetworkRequestState state, bool always, qint64 at, const QString &by,
                              QString &error)
{
    QSqlQuery q(m_db.handle());
    if (!execBound(q, QStringLiteral("UPDATE network_requests SET state = ?, always = ?, decided_at = ?, decided_by = ?"
                                     " WHERE id = ? AND state = 'pending'"),
                   {networkRequestStateName(state), always ? 1 : 0, at, by, id}, error,
                   QStringLiteral("cannot record the decision: %1")))
        return -1;
    return q.numRowsAffected() > 0 ? 1 : 0;
}

bool NetworkRepository::addRules(const QList<NetworkRule> &rules, QString &error)
{
    if (!m_db.handle().transaction()) {
        error = QStringLiteral("cannot record the network rules");
        return false;
    }
    for (const NetworkRule &r : rules) {
        QSqlQuery q(m_db.handle());
        if (!execBound(q, QStringLiteral("INSERT INTO network_rules (sandbox_id, runtime_name, host, request_id, added_at)"
                                         " VALUES (?,?,?,?,?)"),
                       {nullIfEmpty(r.sandboxId), nullIfEmpty(r.runtimeName), r.host, nullIfEmpty(r.requestId), r.addedAt},
                       error, QStringLiteral("cannot record the network rules: %1"))) {
            m_db.handle().rollback();
            return false;
        }
    }
    if (!m_db.handle().commit()) {
        error = QStringLiteral("cannot record the network rules");
        return false;
    }
    return true;
}

QList<NetworkRule> NetworkRepository::rules() const
{
    QList<NetworkRule> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT id, sandbox_id, runtime_name, host, request_id, added_at FROM network_rules ORDER BY id"));
    while (q.next()) {
        NetworkRule r;
        r.id = q.value(0).toLongLong();
        r.sandboxId = q.value(1).toString();
        r.runtimeName = q.value(2).toString();
        r.host = q.value(3).toString();
        r.requestId = q.value(4).toString();
        r.addedAt = q.value(5).toLongLong();
        out.append(r);
    }
    return out;
}

bool NetworkRepository::removeRule(qint64 id, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("DELETE FROM network_rules WHERE id = ?"), {id}, error,
                     QStringLiteral("cannot forget the network rule: %1"));
}

bool NetworkRepository::removeRulesOfRequest(const QString &requestId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("DELETE FROM network_rules WHERE request_id = ?"), {requestId}, error,
                     QStringLiteral("cannot forget the network rules: %1"));
}

} // namespace chat2sbx
