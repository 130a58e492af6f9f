#pragma once

#include "state/ExportRequest.h"
#include "state/ExportRequestRepository.h"

#include <QObject>
#include <QSet>

#include <functional>
#include <optional>

namespace chat2sbx {

class Clock;
class Database;

// Exports that wait for the user (exportNeedsApproval; a file over a budget with exportOverBudget
// "ask"). FileExport asks pass() before it copies; the user decides in the tray, from a
// notification or with `chat2sbx approval approve|reject <exp_…>`; the agent's next export_file of
// the same path learns the decision. Like a folder request: nothing is decided by a timeout, and
// every change is committed before a method returns or a signal is emitted (the CLI's decisions are
// made by the server on its control channel: nothing is polled).
class ExportApprovals : public QObject {
    Q_OBJECT
public:
    ExportApprovals(Database &db, Clock &clock, QObject *parent = nullptr);

    struct Gate {
        enum class Status { Go, Waiting, Rejected, Refused };
        Status status = Status::Refused;
        ExportRequest request;   // Go: the approval used; Waiting, Rejected: the request
        QString reason;          // Refused: one sentence
    };
    // `asked` (sandbox, path, shown, size, folder, why, client) must wait for the user:
    //  - an approval of this sandbox and path that covers the size → Go (used up here: one copy);
    //  - its pending request → Waiting, the same request again;
    //  - a rejection → Rejected, told once (the next call asks anew);
    //  - otherwise a new pending request, recorded before this returns → Waiting.
    Gate pass(const ExportRequest &asked);
    // An approval covers the file at up to its size then, plus 10% (at least 1 MiB): a folder packed
    // again comes out a little different.
    static bool covers(const ExportRequest &approved, qint64 size);
    static constexpr int kMaxPending = 20;
    static constexpr int kMaxPendingPerSandbox = 5;

    // The user's decision; an error (one sentence) for an unknown id or one no longer pending.
    std::optional<ExportRequest> approve(const QString &id, const QString &decidedBy, QString &error);
    bool reject(const QString &id, const QString &decidedBy, QString &error);

    std::optional<ExportRequest> find(const QString &id) const;
    QList<ExportRequest> pending() const;
    QList<ExportRequest> list() const;   // every request, oldest first
    // Closes the requests of sandboxes `isGone` names (destroyed): nothing waits for them any more.
    void forgetSandboxes(const std::function<bool(const QString &sandboxId)> &isGone);

    // The server's start: the requests already pending count as announced.
    void start();

signals:
    void requestsChanged();
    void exportRequested(const QString &id);

private:
    std::optional<ExportRequest> decide(const QString &id, ExportRequestState state, const QString &decidedBy, QString &error);
    void changedHere();

    Clock &m_clock;
    ExportRequestRepository m_repo;
    QSet<QString> m_knownPending;
};

} // namespace chat2sbx
