#include "sandbox/network/NetworkAccess.h"

#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/lifecycle/SandboxServiceLog.h"
#include "sandbox/sbx/SbxDriver.h"
#include "state/AuditEntry.h"
#include "state/AuditLogRepository.h"

#include <algorithm>

namespace chat2sbx {
namespace {

QStringList normalized(const QStringList &hosts)
{
    QStringList out;
    for (const QString &h : hosts) {
        const QString t = h.trimmed().toLower();
        if (!t.isEmpty() && !out.contains(t))
            out << t;
    }
    std::sort(out.begin(), out.end());
    return out;
}

bool isGone(const std::optional<SandboxView> &v)
{
    return !v || v->record.state == SandboxState::Destroyed || v->record.state == SandboxState::Failed;
}

// sbx says the rule is not there (any more): nothing left to remove.
bool alreadyRemoved(const SbxResult &r)
{
    const QString text = QString::fromUtf8(r.err + r.out).toLower();
    return text.contains(QLatin1String("no matching")) || text.contains(QLatin1String("not found"));
}

} // namespace

NetworkAccess::NetworkAccess(Database &db, SandboxService &sandboxes, SbxDriver &sbx, Clock &clock, QObject *parent)
    : QObject(parent), m_db(db), m_sandboxes(sandboxes), m_sbx(sbx), m_clock(clock), m_repo(db)
{
    connect(&m_sandboxes, &SandboxService::sandboxesChanged, this, &NetworkAccess::sweepRules);
}

QString NetworkAccess::runtimeOf(const QString &sandboxId, bool activeOnly) const
{
    const std::optional<SandboxView> v = m_sandboxes.get(sandboxId);
    if (!v || (activeOnly && !v->record.isActive()))
        return {};
    return v->record.runtimeName;
}

bool NetworkAccess::covered(const QString &sandboxId, const QStringList &hosts) const
{
    const QList<NetworkRule> rules = m_repo.rules();
    const std::optional<SandboxView> v = m_sandboxes.get(sandboxId);
    const bool cloud = v && v->record.isCloud();
    const QString runtime = v ? v->record.runtimeName : QString();
    // A rule covers the runtime it was added for: after a move the sandbox's runtime is another one,
    // which sbx holds no rule for. A global rule is of this computer's policy, not the cloud's.
    const auto applies = [&](const NetworkRule &r) {
        return r.sandboxId.isEmpty() ? !cloud : r.sandboxId == sandboxId && (r.runtimeName.isEmpty() || r.runtimeName == runtime);
    };
    return std::all_of(hosts.cbegin(), hosts.cend(), [&](const QString &h) {
        return std::any_of(rules.cbegin(), rules.cend(), [&](const NetworkRule &r) { return r.host == h && applies(r); });
    });
}

NetworkAccess::RequestOutcome NetworkAccess::request(const QString &sandboxId, const QStringList &hosts,
                                                     const QString &reason, const QString &clientName)
{
    RequestOutcome out;
    const QStringList wanted = normalized(hosts);
    if (wanted.isEmpty() || wanted.size() > kMaxHosts) {
        out.reason = QStringLiteral("give between 1 and %1 hosts").arg(kMaxHosts);
        return out;
    }
    for (const QString &h : wanted) {
        if (!isRequestableHostPattern(h)) {
            out.reason = QStringLiteral("'%1' is not a host pattern sbx accepts (host, *.domain, host:port)").arg(h.left(100));
            return out;
        }
    }
    if (runtimeOf(sandboxId, true).isEmpty()) {
        out.reason = QStringLiteral("no sandbox %1 (list them with sandbox_list)").arg(sandboxId.left(40));
        return out;
    }
    const QList<NetworkRequest> all = m_repo.list(false);
    for (auto it = all.crbegin(); it != all.crend(); ++it) {
        if (it->sandboxId != sandboxId || normalized(it->hosts) != wanted)
            continue;
        out.request = *it;
        if (it->isPending()) {
            out.status = RequestOutcome::Status::ApprovalRequired;
            return out;
        }
        if (it->state == NetworkRequestState::Denied) {
            out.status = RequestOutcome::Status::Denied;
            return out;
        }
        break;  // allowed: still covered (below), or its rules were removed and it is asked again
    }
    if (covered(sandboxId, wanted)) {
        out.status = RequestOutcome::Status::Allowed;
        return out;
    }
    const QString client = clientName.left(100);
    int waiting = 0, fromClient = 0;
    for (const NetworkRequest &r : all) {
        if (r.isPending()) {
            ++waiting;
            fromClient += r.clientName == client ? 1 : 0;
        }
    }
    if (waiting >= kMaxPending) {
        out.reason = QStringLiteral("%1 network requests are already waiting for the user's decision; ask the user to "
                                    "decide them (chat2sbx network list) before requesting more").arg(kMaxPending);
        return out;
    }
    if (fromClient >= kMaxPendingPerClient) {
        out.reason = QStringLiteral("this client already has %1 network requests waiting for the user's decision; ask the "
                                    "user to decide them (chat2sbx network list) before requesting more").arg(kMaxPendingPerClient);
        return out;
    }
    NetworkRequest r;
    r.id = newId("net_");
    r.sandboxId = sandboxId;
    r.hosts = wanted;
    r.reason = reason.left(500);
    r.clientName = client;
    r.requestedAt = m_clock.nowMs();
    QString error;
    if (!m_repo.insert(r, error)) {
        out.reason = error;
        return out;
    }
    out.status = RequestOutcome::Status::ApprovalRequired;
    out.request = r;
    m_knownPending.insert(r.id);
    emit requested(r.id);
    emit changed();
    return out;
}

void NetworkAccess::allow(const QString &id, bool always, const QString &decidedBy, Done done)
{
    const std::optional<NetworkRequest> r = m_repo.find(id);
    if (!r)
        return done(false, QStringLiteral("no network request with id %1").arg(id));
    if (!r->isPending())
        return done(false, QStringLiteral("network request %1 was already %2 at %3; a decision is final")
                               .arg(id, networkRequestStateName(r->state), isoTime(r->decidedAt)));
    applyAllow(*r, always, decidedBy, std::move(done));
}

void NetworkAccess::applyAllow(const NetworkRequest &request, bool always, const QString &decidedBy, Done done)
{
    if (always && isCloudRuntime(runtimeOf(request.sandboxId, false)))
        return done(false, QStringLiteral("an always rule is for the sandboxes on this computer; %1 runs in Docker's cloud, whose "
                                          "network policy is its own: allow it for this sandbox").arg(request.sandboxId));
    const QString runtime = always ? QString() : runtimeOf(request.sandboxId, true);
    if (!always && runtime.isEmpty())
        return done(false, QStringLiteral("sandbox %1 no longer exists; deny the request or allow it always").arg(request.sandboxId));
    // Recorded before sbx runs: a rule sbx added is always one chat2sbx knows to remove.
    QList<NetworkRule> rules;
    for (const QString &h : request.hosts)
        rules.append({0, always ? QString() : request.sandboxId, runtime, h, request.id, m_clock.nowMs()});
    QString error;
    if (!m_repo.addRules(rules, error))
        return done(false, error);
    const QString id = request.id;
    const QString sandboxId = request.sandboxId;
    const QString summary = request.hosts.join(QStringLiteral(", ")) + (always ? QStringLiteral(" (always)") : QString());
    const bool cloud = isCloudRuntime(runtime);
    m_sbx.policyAllow(runtime, request.hosts, [this, id, always, decidedBy, sandboxId, summary, done](const SbxResult &res) {
        QString dbError;
        if (!res.ok) {
            m_repo.removeRulesOfRequest(id, dbError);
            audit(QStringLiteral("network allow"), sandboxId, summary, QStringLiteral("error"), decidedBy);
            emit changed();
            return done(false, m_sandboxes.publicText(res.error));
        }
        const int recorded = m_repo.decide(id, NetworkRequestState::Allowed, always, m_clock.nowMs(), decidedBy, dbError);
        if (recorded < 0)
            return done(false, dbError);
        m_knownPending.remove(id);
        audit(QStringLiteral("network allow"), sandboxId, summary, recorded ? QStringLiteral("ok") : QStringLiteral("error"), decidedBy);
        emit changed();
        if (recorded == 0)
            return done(false, QStringLiteral("network request %1 was decided meanwhile").arg(id));
        done(true, {});
    }, cloud);
}

bool NetworkAccess::deny(const QString &id, const QString &decidedBy, QString &error)
{
    const std::optional<NetworkRequest> r = m_repo.find(id);
    if (!r) {
        error = QStringLiteral("no network request with id %1").arg(id);
        return false;
    }
    if (!r->isPending()) {
        error = QStringLiteral("network request %1 was already %2 at %3; a decision is final")
                    .arg(id, networkRequestStateName(r->state), isoTime(r->decidedAt));
        return false;
    }
    const int recorded = m_repo.decide(id, NetworkRequestState::Denied, false, m_clock.nowMs(), decidedBy, error);
    if (recorded <= 0) {
        if (recorded == 0)
            error = QStringLiteral("network request %1 was decided meanwhile").arg(id);
        return false;
    }
    m_knownPending.remove(id);
    audit(QStringLiteral("network deny"), r->sandboxId, r->hosts.join(QStringLiteral(", ")), QStringLiteral("ok"), decidedBy);
    emit changed();
    return true;
}

void NetworkAccess::allowHosts(const QString &sandboxId, const QStringList &hosts, bool always, const QString &decidedBy,
                               Done done)
{
    NetworkRequest r;
    r.id = newId("net_");
    r.sandboxId = sandboxId;
    r.hosts = normalized(hosts);
    r.clientName = decidedBy;
    r.reason = QStringLiteral("allowed by the user from the blocked hosts list");
    r.requestedAt = m_clock.nowMs();
    for (const QString &h : std::as_const(r.hosts)) {
        if (!isRequestableHostPattern(h))
            return done(false, QStringLiteral("'%1' is not a host pattern sbx accepts").arg(h.left(100)));
    }
    if (r.hosts.isEmpty() || r.hosts.size() > kMaxHosts)
        return done(false, QStringLiteral("give between 1 and %1 hosts").arg(kMaxHosts));
    QString error;
    if (!m_repo.insert(r, error))
        return done(false, error);
    applyAllow(r, always, decidedBy, std::move(done));
}

void NetworkAccess::removeRule(qint64 ruleId, Done done)
{
    const QList<NetworkRule> rules = m_repo.rules();
    const auto it = std::find_if(rules.cbegin(), rules.cend(), [ruleId](const NetworkRule &r) { return r.id == ruleId; });
    if (it == rules.cend())
        return done(false, QStringLiteral("no network rule %1").arg(ruleId));
    if (m_removing.contains(ruleId))
        return done(false, QStringLiteral("network rule %1 is being removed").arg(ruleId));
    const NetworkRule rule = *it;
    m_removing.insert(ruleId);
    m_sbx.policyRemove(rule.runtimeName, rule.host, [this, rule, done](const SbxResult &res) {
        m_removing.remove(rule.id);
        if (!res.ok && !alreadyRemoved(res))
            return done(false, m_sandboxes.publicText(res.error));
        QString dbError;
        if (!m_repo.removeRule(rule.id, dbError))
            return done(false, dbError);
        audit(QStringLiteral("network rule removed"), rule.sandboxId, rule.host, QStringLiteral("ok"), QString());
        emit changed();
        done(true, {});
    }, isCloudRuntime(rule.runtimeName));
}

void NetworkAccess::sweepRules()
{
    for (const NetworkRule &rule : m_repo.rules()) {
        if (rule.sandboxId.isEmpty() || m_removing.contains(rule.id))
            continue;
        // Gone with its sandbox, or left with a runtime the sandbox no longer runs in (moved between
        // this computer and the cloud): out of that runtime's policy store too.
        const std::optional<SandboxView> v = m_sandboxes.get(rule.sandboxId);
        if (isGone(v) || (!rule.runtimeName.isEmpty() && v->record.runtimeName != rule.runtimeName))
            removeRule(rule.id, [](bool, const QString &) {});
    }
}

void NetworkAccess::blockedHosts(const QString &sandboxId,
                                 std::function<void(const QStringList &hosts, const QString &error)> done)
{
    const QString runtime = runtimeOf(sandboxId, false);
    if (runtime.isEmpty())
        return done({}, QStringLiteral("no sandbox %1").arg(sandboxId.left(40)));
    m_sbx.policyLog(runtime, 100, [this, runtime, done](const SbxResult &res) {
        QList<SbxPolicyLogEntry> entries;
        if (!res.ok)
            return done({}, m_sandboxes.publicText(res.error));
        if (!parsePolicyLog(res.out, entries))
            return done({}, QStringLiteral("sbx policy log printed nothing chat2sbx could read"));
        QStringList hosts;
        for (const SbxPolicyLogEntry &e : std::as_const(entries)) {
            if (!e.blocked || (!e.sandbox.isEmpty() && e.sandbox != runtime) || hosts.contains(e.host))
                continue;
            hosts << e.host.left(260);
            if (hosts.size() >= kRecentBlockedLimit)
                break;
        }
        done(hosts, {});
    }, isCloudRuntime(runtime));
}

void NetworkAccess::start()
{
    for (const NetworkRequest &r : m_repo.list(true))
        m_knownPending.insert(r.id);
    sweepRules();
}

void NetworkAccess::audit(const QString &what, const QString &sandboxId, const QString &summary, const QString &outcome,
                          const QString &by)
{
    AuditEntry e;
    e.at = m_clock.nowMs();
    e.client = by;
    e.tool = what;
    e.sandboxId = sandboxId;
    e.summary = summary;
    e.outcome = outcome;
    QString error;
    AuditLogRepository(m_db).insert(AuditLogRepository::bounded(e), error);
}

} // namespace chat2sbx
