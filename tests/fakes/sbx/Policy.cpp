#include "Policy.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSaveFile>

namespace fakesbx {

namespace {

constexpr int kMaxLogEntries = 500;

QString nowIso()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODate);
}

QString hostPort(const QString &host, int port)
{
    return QStringLiteral("%1:%2").arg(host).arg(port);
}

QString reasonOf(const PolicyDecision &d)
{
    return d.allowed ? QStringLiteral("matched allow rule")
           : d.approvalQueued ? QStringLiteral("approval required")
           : d.rule.isEmpty() ? QStringLiteral("no matching allow rule - blocked by default deny policy")
                              : QStringLiteral("blocked by local rule");
}

} // namespace

bool validPattern(const QString &pattern)
{
    if (pattern == QLatin1String("**"))
        return true;
    static const QRegularExpression re(QStringLiteral(
        "^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*(:[0-9]{1,5})?$"));
    return pattern.size() <= 253 && re.match(pattern).hasMatch();
}

bool patternMatches(const QString &pattern, const QString &host, int port)
{
    if (pattern == QLatin1String("**"))
        return true;
    QString hostPart = pattern;
    const qsizetype colon = pattern.lastIndexOf(QLatin1Char(':'));
    if (colon > 0) {
        if (pattern.mid(colon + 1).toInt() != port)
            return false;
        hostPart = pattern.left(colon);
    }
    const QString h = host.toLower();
    hostPart = hostPart.toLower();
    if (hostPart.startsWith(QLatin1String("*.")))
        return h.endsWith(hostPart.mid(1)) && h.size() > hostPart.size() - 1;
    return h == hostPart;
}

bool PolicyStore::load(QString *error)
{
    QFile f(m_state.path(QStringLiteral("policy.json")));
    if (!f.exists())
        return true;
    if (!f.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("ERROR: cannot read the policy store");
        return false;
    }
    const QJsonObject o = QJsonDocument::fromJson(f.readAll()).object();
    m_nextId = qMax(1, o.value(QStringLiteral("next_id")).toInt(1));
    for (const QJsonValue &v : o.value(QStringLiteral("rules")).toArray()) {
        const QJsonObject r = v.toObject();
        rules.append({r.value(QStringLiteral("id")).toString(), r.value(QStringLiteral("sandbox")).toString(),
                      r.value(QStringLiteral("decision")).toString(), r.value(QStringLiteral("resource")).toString()});
    }
    for (const QJsonValue &v : o.value(QStringLiteral("approvals")).toArray()) {
        const QJsonObject a = v.toObject();
        approvals.append({a.value(QStringLiteral("id")).toString(), a.value(QStringLiteral("sandbox")).toString(),
                          a.value(QStringLiteral("host")).toString(), a.value(QStringLiteral("status")).toString(),
                          a.value(QStringLiteral("created")).toString()});
    }
    log = o.value(QStringLiteral("log")).toArray();
    preset = o.value(QStringLiteral("preset")).toString();
    return true;
}

bool PolicyStore::save(QString *error) const
{
    QJsonArray ruleArray, approvalArray;
    for (const PolicyRule &r : rules)
        ruleArray.append(QJsonObject{{QStringLiteral("id"), r.id}, {QStringLiteral("sandbox"), r.sandbox},
                                     {QStringLiteral("decision"), r.decision}, {QStringLiteral("resource"), r.resource}});
    for (const PolicyApproval &a : approvals)
        approvalArray.append(QJsonObject{{QStringLiteral("id"), a.id}, {QStringLiteral("sandbox"), a.sandbox},
                                         {QStringLiteral("host"), a.host}, {QStringLiteral("status"), a.status},
                                         {QStringLiteral("created"), a.created}});
    const QJsonObject o{{QStringLiteral("next_id"), m_nextId}, {QStringLiteral("rules"), ruleArray},
                        {QStringLiteral("approvals"), approvalArray}, {QStringLiteral("log"), log},
                        {QStringLiteral("preset"), preset}};
    QSaveFile f(m_state.path(QStringLiteral("policy.json")));
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit()) {
        *error = QStringLiteral("ERROR: cannot write the policy store");
        return false;
    }
    return true;
}

QString PolicyStore::nextId(const QString &prefix)
{
    return prefix + QString::number(m_nextId++);
}

QString PolicyStore::addRule(const QString &sandbox, const QString &decision, const QString &resource)
{
    for (const PolicyRule &r : std::as_const(rules)) {
        if (r.sandbox == sandbox && r.decision == decision && r.resource == resource)
            return r.id;
    }
    PolicyRule r{nextId(QStringLiteral("r")), sandbox, decision, resource};
    rules.append(r);
    return r.id;
}

int PolicyStore::removeRules(const QString &sandbox, const QString &resource, const QString &id)
{
    const qsizetype before = rules.size();
    rules.removeIf([&](const PolicyRule &r) {
        if (!id.isEmpty())
            return r.id == id;
        return r.sandbox == sandbox && r.resource == resource;
    });
    return int(before - rules.size());
}

PolicyDecision PolicyStore::decide(const QString &sandbox, const QString &host, int port, bool approvalsOn,
                                   bool defaultAllow) const
{
    PolicyDecision d;
    const QString target = hostPort(host, port);
    auto applies = [&](const PolicyRule &r, const QString &decision) {
        return r.decision == decision && (r.sandbox.isEmpty() || r.sandbox == sandbox)
               && patternMatches(r.resource, host, port);
    };
    for (const PolicyRule &r : rules) {
        if (applies(r, QStringLiteral("deny"))) {
            d.rule = r.resource;
            d.body = QStringLiteral("Blocked by network policy: domain %1\n  detail: blocked by local rule for %2\n")
                         .arg(target, r.resource);
            return d;
        }
    }
    for (const PolicyRule &r : rules) {
        if (applies(r, QStringLiteral("allow"))) {
            d.allowed = true;
            d.rule = r.resource;
            return d;
        }
    }
    if (defaultAllow) {
        d.allowed = true;
        return d;
    }
    if (approvalsOn) {
        d.approvalQueued = true;
        d.body = QStringLiteral("Approval required for %1.\nReview and respond with:\n  sbx policy approval ls\n").arg(host);
        return d;
    }
    d.body = QStringLiteral("Blocked by network policy: domain %1\n"
                            "  detail: no matching allow rule - blocked by default deny policy\n").arg(target);
    return d;
}

void PolicyStore::record(const QString &sandbox, const QString &host, int port, const PolicyDecision &d)
{
    const QString domain = hostPort(host, port);
    const QString decision = d.allowed ? QStringLiteral("allowed") : QStringLiteral("blocked");
    const QString now = nowIso();
    for (qsizetype i = 0; i < log.size(); ++i) {
        QJsonObject e = log.at(i).toObject();
        if (e.value(QStringLiteral("sandbox")).toString() == sandbox && e.value(QStringLiteral("domain")).toString() == domain
            && e.value(QStringLiteral("decision")).toString() == decision) {
            e.insert(QStringLiteral("count"), e.value(QStringLiteral("count")).toInt() + 1);
            e.insert(QStringLiteral("lastSeen"), now);
            e.insert(QStringLiteral("rule"), d.rule);
            e.insert(QStringLiteral("reason"), reasonOf(d));
            log.removeAt(i);
            log.append(e);  // newest last
            return;
        }
    }
    const QString reason = reasonOf(d);
    log.append(QJsonObject{{QStringLiteral("sandbox"), sandbox}, {QStringLiteral("domain"), domain},
                           {QStringLiteral("decision"), decision}, {QStringLiteral("proxyType"), QStringLiteral("forward")},
                           {QStringLiteral("rule"), d.rule}, {QStringLiteral("reason"), reason},
                           {QStringLiteral("count"), 1}, {QStringLiteral("firstSeen"), now},
                           {QStringLiteral("lastSeen"), now}});
    while (log.size() > kMaxLogEntries)
        log.removeFirst();
}

QString PolicyStore::queueApproval(const QString &sandbox, const QString &host, int port)
{
    const QString target = hostPort(host, port);
    for (const PolicyApproval &a : std::as_const(approvals)) {
        if (a.sandbox == sandbox && a.host == target && a.status == QLatin1String("pending"))
            return a.id;
    }
    PolicyApproval a{nextId(QStringLiteral("a")), sandbox, target, QStringLiteral("pending"), nowIso()};
    approvals.append(a);
    return a.id;
}

} // namespace fakesbx
