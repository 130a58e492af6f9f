#include "sandbox/changes/ExportApprovals.h"

#include "core/Clock.h"
#include "core/Ids.h"

namespace chat2sbx {

ExportApprovals::ExportApprovals(Database &db, Clock &clock, QObject *parent)
    : QObject(parent), m_clock(clock), m_repo(db)
{
}

bool ExportApprovals::covers(const ExportRequest &approved, qint64 size)
{
    return size <= approved.size + qMax<qint64>(1 << 20, approved.size / 10);
}

ExportApprovals::Gate ExportApprovals::pass(const ExportRequest &asked)
{
    Gate gate;
    QString error;
    if (std::optional<ExportRequest> open = m_repo.findOpen(asked.sandboxId, asked.path)) {
        switch (open->state) {
        case ExportRequestState::Pending:
            gate.status = Gate::Status::Waiting;
            gate.request = *open;
            return gate;
        case ExportRequestState::Rejected:
        case ExportRequestState::Approved: {
            const int closed = m_repo.close(open->id, error);
            if (closed < 0) {
                gate.reason = error;
                return gate;
            }
            changedHere();
            if (closed == 0)
                break;   // another call took it: ask anew
            if (open->state == ExportRequestState::Rejected) {
                gate.status = Gate::Status::Rejected;
                gate.request = *open;
                return gate;
            }
            if (covers(*open, asked.size)) {
                gate.status = Gate::Status::Go;
                gate.request = *open;
                return gate;
            }
            break;   // the file grew past what the user saw: ask anew
        }
        case ExportRequestState::Closed:
            break;
        }
    }
    if (m_repo.countPending() >= kMaxPending || m_repo.countPending(asked.sandboxId) >= kMaxPendingPerSandbox) {
        gate.reason = QStringLiteral("too many exports wait for the user's approval already; ask the user to decide those "
                                     "first (chat2sbx tray, or `chat2sbx approval list`)");
        return gate;
    }
    ExportRequest r = asked;
    r.id = newId("exp_");
    r.state = ExportRequestState::Pending;
    r.requestedAt = m_clock.nowMs();
    r.decidedAt = 0;
    r.decidedBy.clear();
    if (!m_repo.insert(r, error)) {
        gate.reason = error;
        return gate;
    }
    m_knownPending.insert(r.id);
    emit exportRequested(r.id);
    changedHere();
    gate.status = Gate::Status::Waiting;
    gate.request = r;
    return gate;
}

std::optional<ExportRequest> ExportApprovals::decide(const QString &id, ExportRequestState state, const QString &decidedBy,
                                                     QString &error)
{
    const std::optional<ExportRequest> r = m_repo.find(id);
    if (!r) {
        error = QStringLiteral("no export request with id %1").arg(id);
        return std::nullopt;
    }
    const int recorded = m_repo.decide(id, state, m_clock.nowMs(), decidedBy, error);
    if (recorded < 0)
        return std::nullopt;
    if (recorded == 0) {
        const std::optional<ExportRequest> now = m_repo.find(id);
        error = QStringLiteral("export request %1 was already %2%3")
                    .arg(id, exportRequestStateName(now ? now->state : r->state),
                         now && !now->decidedBy.isEmpty() ? QStringLiteral(" (from %1)").arg(now->decidedBy) : QString());
        return std::nullopt;
    }
    m_knownPending.remove(id);
    changedHere();
    return m_repo.find(id);
}

std::optional<ExportRequest> ExportApprovals::approve(const QString &id, const QString &decidedBy, QString &error)
{
    return decide(id, ExportRequestState::Approved, decidedBy, error);
}

bool ExportApprovals::reject(const QString &id, const QString &decidedBy, QString &error)
{
    return decide(id, ExportRequestState::Rejected, decidedBy, error).has_value();
}

std::optional<ExportRequest> ExportApprovals::find(const QString &id) const
{
    return m_repo.find(id);
}

QList<ExportRequest> ExportApprovals::pending() const
{
    return m_repo.list(true);
}

QList<ExportRequest> ExportApprovals::list() const
{
    return m_repo.list(false);
}

void ExportApprovals::forgetSandboxes(const std::function<bool(const QString &)> &isGone)
{
    QSet<QString> gone;
    for (const ExportRequest &r : m_repo.list(true))
        if (!gone.contains(r.sandboxId) && isGone(r.sandboxId))
            gone.insert(r.sandboxId);
    QString error;
    for (const QString &sandboxId : gone)
        m_repo.closeAllOf(sandboxId, error);   // a failure leaves them listed until the next change
    if (!gone.isEmpty())
        changedHere();
}

void ExportApprovals::start()
{
    for (const ExportRequest &r : m_repo.list(true))
        m_knownPending.insert(r.id);
}

void ExportApprovals::changedHere()
{
    emit requestsChanged();
}

} // namespace chat2sbx
