// The network policy of the real sbx (sbx-contract.md, "Network policy and approvals"): allow and
// deny rules, global or for one sandbox (deny wins), a log of the proxy's decisions and, with
// approvals on (FAKE_SBX_APPROVALS=1), a queue of requests no rule covers. Kept in
// $FAKE_SBX_STATE/policy.json; read and written under the StateLock.
#pragma once

#include "FakeState.h"

#include <QJsonArray>
#include <QList>
#include <QString>

namespace fakesbx {

struct PolicyRule
{
    QString id;        // "r<n>"
    QString sandbox;   // empty: global
    QString decision;  // "allow" | "deny"
    QString resource;  // host pattern: host, *.domain, host:port, **
};

struct PolicyApproval
{
    QString id;        // "a<n>"
    QString sandbox;
    QString host;      // host:port as requested
    QString status;    // "pending" | "allowed" | "denied"
    QString created;   // ISO 8601 UTC
};

struct PolicyDecision
{
    bool allowed = false;
    bool approvalQueued = false;  // no rule covered it and approvals are on
    QString rule;                 // the matching rule's resource, empty for the default
    QString body;                 // the 403 body when !allowed
};

class PolicyStore
{
public:
    explicit PolicyStore(const StateDir &state) : m_state(state) {}

    bool load(QString *error);
    bool save(QString *error) const;

    QList<PolicyRule> rules;
    QList<PolicyApproval> approvals;
    QJsonArray log;   // aggregated entries, see README ("policy log --json")
    QString preset;   // set by `policy init`: allow-all lets what no rule covers through

    // Adds a rule unless the same one exists; returns its id.
    QString addRule(const QString &sandbox, const QString &decision, const QString &resource);
    // Removes matching rules; returns how many.
    int removeRules(const QString &sandbox, const QString &resource, const QString &id);
    // Decides a request of <sandbox> for host:port (deny wins, then allow, then the default).
    PolicyDecision decide(const QString &sandbox, const QString &host, int port, bool approvalsOn,
                          bool defaultAllow) const;
    void record(const QString &sandbox, const QString &host, int port, const PolicyDecision &d);
    QString queueApproval(const QString &sandbox, const QString &host, int port);

private:
    QString nextId(const QString &prefix);

    StateDir m_state;
    int m_nextId = 1;
};

// True when a rule's pattern covers host:port (`**` all, `*.d` subdomains of d, `h:p` only port p).
bool patternMatches(const QString &pattern, const QString &host, int port);
// Pattern syntax the real CLI accepts (a host name, an IPv4 address, `*.` prefix, optional :port, `**`).
bool validPattern(const QString &pattern);

} // namespace fakesbx
