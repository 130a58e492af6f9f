#pragma once

#include "sandbox/sbx/SbxPolicy.h"
#include "state/NetworkRepository.h"
#include "state/NetworkRequest.h"

#include <QObject>
#include <QSet>

#include <functional>
#include <optional>

namespace chat2sbx {

class AuditLogRepository;
class Clock;
class Database;
class SandboxService;
class SbxDriver;

// Network access for sandboxes. An agent's network_request only ever creates (or finds) a pending
// request; the local user decides it from the CLI or the tray. Allowing runs
// `sbx policy allow network [--sandbox RT] HOSTS`; the rules chat2sbx added are recorded first, so
// those of a destroyed sandbox are removed (`sbx policy rm network --resource HOST --sandbox RT`)
// even after a restart. Every request and decision is also an audit row.
//
// Public API for the tray: pending() / rules() / allow() / deny() / removeRule() /
// blockedHosts(); changed() re-reads (also for CLI decisions), requested(id) for a notification.
class NetworkAccess : public QObject {
    Q_OBJECT
public:
    NetworkAccess(Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock, QObject *parent = nullptr);

    static constexpr int kMaxHosts = 10;
    static constexpr int kMaxPending = 20;
    static constexpr int kMaxPendingPerClient = 5;
    static constexpr int kRecentBlockedLimit = 20;

    struct RequestOutcome {
        enum class Status { ApprovalRequired, Allowed, Denied, Refused };
        Status status = Status::Refused;
        QString reason;            // Refused: one sentence
        NetworkRequest request;    // all but Refused (Allowed by rules chat2sbx added: an empty id)
    };
    // The same sandbox and hosts asked again: the pending request, or the last decision when every
    // host is still covered by it; otherwise a new pending request, persisted before this returns.
    RequestOutcome request(const QString &sandboxId, const QStringList &hosts, const QString &reason,
                           const QString &clientName);

    using Done = std::function<void(bool ok, const QString &error)>;
    // `always`: a global rule (every sandbox), else for the request's sandbox only.
    void allow(const QString &id, bool always, const QString &decidedBy, Done done);
    bool deny(const QString &id, const QString &decidedBy, QString &error);
    // Allows hosts for a sandbox straight from the tray's blocked-host list (no agent request).
    void allowHosts(const QString &sandboxId, const QStringList &hosts, bool always, const QString &decidedBy, Done done);

    std::optional<NetworkRequest> find(const QString &id) const { return m_repo.find(id); }
    QList<NetworkRequest> pending() const { return m_repo.list(true); }
    QList<NetworkRequest> list() const { return m_repo.list(false); }
    QList<NetworkRule> rules() const { return m_repo.rules(); }
    // Removes a rule chat2sbx added (sbx first, then the record).
    void removeRule(qint64 ruleId, Done done);

    // The sandbox's recently blocked hosts from `sbx policy log <rt> --json` (newest first, unique).
    void blockedHosts(const QString &sandboxId, std::function<void(const QStringList &hosts, const QString &error)> done);

    // Removes the rules of sandboxes that are destroyed or gone. Runs at start and whenever the
    // sandboxes change.
    void sweepRules();

    // The server's start: the requests already pending count as announced, and the rules of
    // sandboxes gone meanwhile go. (The CLI's decisions are the server's own: nothing is polled.)
    void start();

signals:
    void changed();
    void requested(const QString &id);

private:
    void audit(const QString &what, const QString &sandboxId, const QString &summary, const QString &outcome,
               const QString &by);
    void applyAllow(const NetworkRequest &request, bool always, const QString &decidedBy, Done done);
    QString runtimeOf(const QString &sandboxId, bool activeOnly) const;
    bool covered(const QString &sandboxId, const QStringList &hosts) const;

    Database &m_db;
    SandboxService &m_sandboxes;
    SbxDriver &m_sbx;
    Clock &m_clock;
    NetworkRepository m_repo;
    QSet<QString> m_knownPending;
    QSet<qint64> m_removing;
};

} // namespace chat2sbx
