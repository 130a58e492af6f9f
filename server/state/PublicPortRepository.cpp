#include "state/PublicPortRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

QString publicPortStateName(PublicPortState state)
{
    switch (state) {
    case PublicPortState::Pending: return QStringLiteral("pending");
    case PublicPortState::Approved: return QStringLiteral("approved");
    case PublicPortState::Rejected: return QStringLiteral("rejected");
    case PublicPortState::Published: return QStringLiteral("published");
    case PublicPortState::Failed: return QStringLiteral("failed");
    case PublicPortState::Unpublished: return QStringLiteral("unpublished");
    }
    return QStringLiteral("pending");
}

bool parsePublicPortState(const QString &text, PublicPortState &out)
{
    for (const PublicPortState s : {PublicPortState::Pending, PublicPortState::Approved, PublicPortState::Rejected,
                                    PublicPortState::Published, PublicPortState::Failed, PublicPortState::Unpublished}) {
        if (text == publicPortStateName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

namespace {

const char kPublicPortColumns[] = "id, sandbox_id, port, client_name, state, url, error, requested_at, decided_at, decided_by";

PublicPortRequest publicPortOfRow(const QSqlQuery &q)
{
    PublicPortRequest r;
    r.id = q.value(0).toString();
    r.sandboxId = q.value(1).toString();
    r.port = q.value(2).toInt();
    r.clientName = q.value(3).toString();
    parsePublicPortState(q.value(4).toString(), r.state);
    r.url = q.value(5).toString();
    r.error = q.value(6).toString();
    r.requestedAt = q.value(7).toLongLong();
    r.decidedAt = q.value(8).isNull() ? 0 : q.value(8).toLongLong();
    r.decidedBy = q.value(9).toString();
    return r;
}

} // namespace

bool PublicPortRepository::insert(const PublicPortRequest &r, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO public_port_requests (%1) VALUES (?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kPublicPortColumns)),
                     {r.id, r.sandboxId, r.port, nullIfEmpty(r.clientName), publicPortStateName(r.state), nullIfEmpty(r.url),
                      nullIfEmpty(r.error), r.requestedAt, r.decidedAt ? QVariant(r.decidedAt) : QVariant(), nullIfEmpty(r.decidedBy)},
                     error, QStringLiteral("cannot record the public port request: %1"));
}

std::optional<PublicPortRequest> PublicPortRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM public_port_requests WHERE id = ?").arg(QLatin1String(kPublicPortColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return publicPortOfRow(q);
    return std::nullopt;
}

std::optional<PublicPortRequest> PublicPortRepository::findLatest(const QString &sandboxId, int port) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM public_port_requests WHERE sandbox_id = ? AND port = ?"
                             " ORDER BY (state IN ('pending','approved','published')) DESC, requested_at DESC, rowid DESC LIMIT 1")
                  .arg(QLatin1String(kPublicPortColumns)));
    q.addBindValue(sandboxId);
    q.addBindValue(port);
    if (q.exec() && q.next())
        return publicPortOfRow(q);
    return std::nullopt;
}

QList<PublicPortRequest> PublicPortRepository::list(bool pendingOnly) const
{
    QList<PublicPortRequest> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM public_port_requests %2 ORDER BY requested_at, rowid")
               .arg(QLatin1String(kPublicPortColumns), pendingOnly ? QStringLiteral("WHERE state = 'pending'") : QString()));
    while (q.next())
        out.append(publicPortOfRow(q));
    return out;
}

QList<PublicPortRequest> PublicPortRepository::published(const QString &sandboxId) const
{
    QList<PublicPortRequest> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM public_port_requests WHERE sandbox_id = ? AND state = 'published' ORDER BY port")
                  .arg(QLatin1String(kPublicPortColumns)));
    q.addBindValue(sandboxId);
    if (q.exec())
        while (q.next())
            out.append(publicPortOfRow(q));
    return out;
}

QList<PublicPortRequest> PublicPortRepository::live() const
{
    QList<PublicPortRequest> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.exec(QStringLiteral("SELECT %1 FROM public_port_requests WHERE state IN ('pending','approved','published')")
               .arg(QLatin1String(kPublicPortColumns)));
    while (q.next())
        out.append(publicPortOfRow(q));
    return out;
}

int PublicPortRepository::countPending() const
{
    QSqlQuery q(m_db.handle());
    return q.exec(QStringLiteral("SELECT COUNT(*) FROM public_port_requests WHERE state = 'pending'")) && q.next() ? q.value(0).toInt() : 0;
}

int PublicPortRepository::move(const QString &id, PublicPortState from, PublicPortState to, qint64 at, const QString &decidedBy,
                               const QString &url, const QString &failure, QString &error)
{
    QSqlQuery q(m_db.handle());
    const bool deciding = from == PublicPortState::Pending;
    if (!execBound(q, QStringLiteral("UPDATE public_port_requests SET state = ?, url = COALESCE(?, url), error = ?%1"
                                     " WHERE id = ? AND state = ?")
                          .arg(deciding ? QStringLiteral(", decided_at = ?, decided_by = ?") : QString()),
                   deciding ? QVariantList{publicPortStateName(to), nullIfEmpty(url), nullIfEmpty(failure), at, nullIfEmpty(decidedBy), id,
                                           publicPortStateName(from)}
                            : QVariantList{publicPortStateName(to), nullIfEmpty(url), nullIfEmpty(failure), id, publicPortStateName(from)},
                   error, QStringLiteral("cannot record the public port: %1")))
        return -1;
    return q.numRowsAffected() > 0 ? 1 : 0;
}

bool PublicPortRepository::closeAllOf(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE public_port_requests SET state = CASE state WHEN 'published' THEN 'unpublished'"
                                       " ELSE 'rejected' END WHERE sandbox_id = ? AND state IN ('pending','approved','published')"),
                     {sandboxId}, error, QStringLiteral("cannot close the public port requests: %1"));
}

} // namespace chat2sbx
