#include "workspace/ApprovalService.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "workspace/WorkspaceService.h"

#include <QFileInfo>

#include <algorithm>

namespace chat2sbx {

ApprovalService::ApprovalService(WorkspaceService &workspaces, Database &db, Clock &clock, QObject *parent)
    : QObject(parent), m_workspaces(workspaces), m_clock(clock), m_repo(db)
{
}

ApprovalService::RequestOutcome ApprovalService::request(const QString &hostPath, WorkspaceMode mode, const QString &reason,
                                                         const QString &clientName)
{
    RequestOutcome out;
    const PathCheck check = m_workspaces.policy().check(hostPath, mode);
    if (!check.ok) {
        out.reason = check.reason;
        return out;
    }
    out.canonicalPath = check.directory.canonicalPath;
    if (std::optional<Workspace> live = m_workspaces.findHost(out.canonicalPath, mode)) {
        out.status = RequestOutcome::Status::Approved;
        out.workspaceId = live->id;
        return out;
    }
    if (std::optional<Approval> latest = m_repo.findLatest(out.canonicalPath, mode)) {
        if (latest->state == ApprovalState::Pending) {
            out.status = RequestOutcome::Status::ApprovalRequired;
            out.approval = *latest;
            return out;
        }
        if (latest->state == ApprovalState::Rejected) {
            out.status = RequestOutcome::Status::Rejected;
            out.approval = *latest;
            return out;
        }
        // Approved, but its workspace is gone: ask again.
    }
    // Every pending request is a question to the user (and a notification): a client cannot pile
    // them up. The same path asked again is answered above without counting.
    const QString client = clientName.left(100);
    const QList<Approval> waiting = m_repo.list(true);
    if (waiting.size() >= kMaxPending) {
        out.status = RequestOutcome::Status::Refused;
        out.reason = QStringLiteral("%1 workspace requests are already waiting for the user's decision; ask the user to "
                                    "approve or reject them (chat2sbx approval list) before requesting more")
                         .arg(kMaxPending);
        return out;
    }
    const auto fromClient = std::count_if(waiting.cbegin(), waiting.cend(),
                                          [&client](const Approval &w) { return w.clientName == client; });
    if (fromClient >= kMaxPendingPerClient) {
        out.status = RequestOutcome::Status::Refused;
        out.reason = QStringLiteral("this client already has %1 workspace requests waiting for the user's decision; ask "
                                    "the user to approve or reject them (chat2sbx approval list) before requesting more")
                         .arg(kMaxPendingPerClient);
        return out;
    }
    Approval a;
    a.id = newId("apr_");
    a.hostPath = out.canonicalPath;
    a.mode = mode;
    a.state = ApprovalState::Pending;
    a.displayName = QFileInfo(out.canonicalPath).fileName();
    a.requestedAt = m_clock.nowMs();
    a.hostDevice = check.directory.device;
    a.hostInode = check.directory.inode;
    a.reason = reason.left(500);
    a.clientName = client;
    QString error;
    if (!m_repo.insert(a, error)) {
        // Another process may have inserted the pending approval in between (unique index).
        if (std::optional<Approval> raced = m_repo.findLatest(out.canonicalPath, mode); raced && raced->isPending()) {
            out.status = RequestOutcome::Status::ApprovalRequired;
            out.approval = *raced;
            return out;
        }
        out.status = RequestOutcome::Status::Refused;
        out.reason = error;
        return out;
    }
    out.status = RequestOutcome::Status::ApprovalRequired;
    out.approval = a;
    rememberSnapshot();
    announce(a.id);
    emit approvalsChanged();
    return out;
}

QString ApprovalService::alreadyDecided(const Approval &a) const
{
    QString text = QStringLiteral("approval %1 was already %2 at %3")
                       .arg(a.id, approvalStateName(a.state), isoTime(a.decidedAt));
    if (!a.decidedBy.isEmpty())
        text += QStringLiteral(" (from %1)").arg(a.decidedBy);
    if (!a.workspaceId.isEmpty())
        text += QStringLiteral(", workspace %1").arg(a.workspaceId);
    return text + QStringLiteral("; a decision is final");
}

std::optional<Workspace> ApprovalService::approve(const QString &id, const QString &decidedBy, QString &error)
{
    const std::optional<Approval> a = m_repo.find(id);
    if (!a) {
        error = QStringLiteral("no approval with id %1").arg(id);
        return std::nullopt;
    }
    if (!a->isPending()) {
        error = alreadyDecided(*a);
        return std::nullopt;
    }
    const PathCheck check = m_workspaces.policy().revalidate({a->hostPath, a->hostDevice, a->hostInode}, a->mode);
    if (!check.ok) {
        error = QStringLiteral("cannot approve %1: %2").arg(id, check.reason);
        return std::nullopt;
    }
    // Register first: a crash before the decision is recorded leaves the approval pending, and
    // approving it again reuses this workspace.
    std::optional<Workspace> ws = m_workspaces.registerHostDirectory(check.directory, a->mode, error);
    if (!ws)
        return std::nullopt;
    const int recorded = m_repo.decide(id, ApprovalState::Approved, m_clock.nowMs(), decidedBy, ws->id, error);
    if (recorded < 0)
        return std::nullopt;
    if (recorded == 0) {
        const std::optional<Approval> now = m_repo.find(id);
        error = now ? alreadyDecided(*now) : QStringLiteral("approval %1 disappeared").arg(id);
        return std::nullopt;
    }
    rememberSnapshot();
    emit approvalsChanged();
    return ws;
}

bool ApprovalService::reject(const QString &id, const QString &decidedBy, QString &error)
{
    const std::optional<Approval> a = m_repo.find(id);
    if (!a) {
        error = QStringLiteral("no approval with id %1").arg(id);
        return false;
    }
    if (!a->isPending()) {
        error = alreadyDecided(*a);
        return false;
    }
    const int recorded = m_repo.decide(id, ApprovalState::Rejected, m_clock.nowMs(), decidedBy, QString(), error);
    if (recorded < 0)
        return false;
    if (recorded == 0) {
        const std::optional<Approval> now = m_repo.find(id);
        error = now ? alreadyDecided(*now) : QStringLiteral("approval %1 disappeared").arg(id);
        return false;
    }
    rememberSnapshot();
    emit approvalsChanged();
    return true;
}

std::optional<Approval> ApprovalService::find(const QString &id) const
{
    return m_repo.find(id);
}

QList<Approval> ApprovalService::pending() const
{
    return m_repo.list(true);
}

QList<Approval> ApprovalService::list() const
{
    return m_repo.list(false);
}

void ApprovalService::start()
{
    rememberSnapshot();
    markSeenAsAnnounced();
}

void ApprovalService::rememberSnapshot()
{
    m_snapshot.clear();
    for (const Approval &a : m_repo.list(false))
        m_snapshot.insert(a.id, a.state);
    for (auto it = m_announced.begin(); it != m_announced.end();) {
        const auto seen = m_snapshot.constFind(*it);
        if (seen != m_snapshot.cend() && seen.value() != ApprovalState::Pending)
            it = m_announced.erase(it);
        else
            ++it;
    }
}

void ApprovalService::markSeenAsAnnounced()
{
    for (auto it = m_snapshot.cbegin(); it != m_snapshot.cend(); ++it) {
        if (it.value() == ApprovalState::Pending)
            m_announced.insert(it.key());
    }
}

void ApprovalService::announce(const QString &id)
{
    if (m_announced.contains(id))
        return;
    m_announced.insert(id);
    emit approvalRequested(id);
}

} // namespace chat2sbx
