#pragma once

#include "state/ApprovalRepository.h"
#include "state/Approval.h"
#include "state/Workspace.h"

#include <QHash>
#include <QObject>
#include <QSet>

#include <optional>

namespace chat2sbx {

class Clock;
class Database;
class WorkspaceService;

// Host-path approvals. An MCP workspace_request only ever creates (or finds) a pending approval;
// the local user decides it with approve() / reject() from the CLI or the tray. Every change is
// committed to the database before a method returns or a signal is emitted.
//
// Public API for the tray:
//   pending() / list() / find()            what to show
//   approve(id, "tray") / reject(id, "tray") the buttons; errors are one readable sentence
//   approvalsChanged()                      re-read the list (CLI decisions too: the server makes them)
//   approvalRequested(id)                   a new request arrived: e.g. show a notification
// While a server runs it is the only process that writes approvals (the CLI's verbs are requests on
// its control channel), so nothing is polled.
class ApprovalService : public QObject {
    Q_OBJECT
public:
    ApprovalService(WorkspaceService &workspaces, Database &db, Clock &clock, QObject *parent = nullptr);

    // What a host path request comes to.
    struct RequestOutcome {
        enum class Status { ApprovalRequired, Approved, Rejected, Refused };
        Status status = Status::Refused;
        QString reason;          // Refused: why, one sentence
        QString canonicalPath;   // all but Refused
        Approval approval;       // ApprovalRequired and Rejected: the approval in question
        QString workspaceId;     // Approved
    };

    // Checks the path under the policy, then: an already registered workspace for the canonical
    // path and mode → Approved; the pending approval for them → the SAME approval again; a rejected
    // one → Rejected; otherwise a new pending approval, persisted before this returns.
    // `reason` (the agent's words) and `clientName` (MCP initialize) are stored with a new approval.
    RequestOutcome request(const QString &hostPath, WorkspaceMode mode, const QString &reason = {},
                           const QString &clientName = {});
    // At most this many approvals wait at once, and at most kMaxPendingPerClient of them from one
    // client (by its MCP client name), so one noisy client leaves room for the others; further new
    // paths are refused until some are decided.
    static constexpr int kMaxPending = 20;
    static constexpr int kMaxPendingPerClient = 5;

    // Re-checks the directory (still accepted by the policy, still the same device/inode as when it
    // was requested), registers the workspace (reusing a live one for the same path and mode) and
    // records the decision. An approval that is not pending is an error, never a second decision.
    std::optional<Workspace> approve(const QString &id, const QString &decidedBy, QString &error);
    bool reject(const QString &id, const QString &decidedBy, QString &error);

    std::optional<Approval> find(const QString &id) const;
    QList<Approval> pending() const;
    QList<Approval> list() const;   // every approval, oldest first

    // The server's start: requests already pending (from before a restart) count as announced;
    // the tray shows and notifies them itself.
    void start();

signals:
    void approvalsChanged();
    void approvalRequested(const QString &id);

private:
    QString alreadyDecided(const Approval &a) const;
    void rememberSnapshot();
    // approvalRequested once per approval, whichever path (a request here, a poll) sees it first.
    void announce(const QString &id);
    void markSeenAsAnnounced();

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    WorkspaceService &m_workspaces;
    Clock &m_clock;
    ApprovalRepository m_repo;
    QHash<QString, ApprovalState> m_snapshot;
    // Pending approvals approvalRequested was emitted for (or that were pending before the watch
    // began); a decided one leaves the set. At most kMaxPending ids are pending at once.
    QSet<QString> m_announced;
};

} // namespace chat2sbx
