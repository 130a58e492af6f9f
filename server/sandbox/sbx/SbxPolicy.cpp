#include "sandbox/sbx/SbxPolicy.h"

#include "sandbox/sbx/SbxJson.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kMaxEntries = 1000;

QString firstString(const QJsonObject &o, std::initializer_list<const char *> names)
{
    for (const char *n : names) {
        const QJsonValue v = o.value(QLatin1String(n));
        if (v.isString() && !v.toString().isEmpty())
            return v.toString();
    }
    return {};
}

// host, host:port, [v6]:port, or a URL's authority; empty when the value is none of these (a
// policy domain such as `network`, `unspecified` or `filesystem:read`, a path, a rule name).
QString hostOf(const QString &value)
{
    QString v = value.trimmed();
    if (v.size() > 300)
        return {};
    const qsizetype scheme = v.indexOf(QLatin1String("://"));
    if (scheme > 0) {
        v = v.mid(scheme + 3);
        static const QRegularExpression pathStart(QStringLiteral("[/?#]"));
        const qsizetype end = v.indexOf(pathStart);
        if (end >= 0)
            v.truncate(end);
    }
    static const QRegularExpression re(QStringLiteral(
        R"(^(\*\.)?[A-Za-z0-9_]([A-Za-z0-9_-]{0,62})(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,62}))*\.?(:[0-9]{1,5})?$)"
        R"(|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$)"));
    if (v.isEmpty() || !re.match(v).hasMatch())
        return {};
    return v;
}

// Docker's PolicyLogEntry names the policy domain `domain` (`network`, `unspecified`) and the host
// another field: a field counts only when its value has a host's shape, and `domain` only when it
// also has a dot or a port (a one-word `domain` is the policy domain, never a host).
QString hostField(const QJsonObject &o)
{
    for (const char *name : {"host", "hostname", "resource", "target", "destination", "address", "url"}) {
        const QJsonValue v = o.value(QLatin1String(name));
        if (v.isString()) {
            const QString h = hostOf(v.toString());
            if (!h.isEmpty())
                return h;
        }
    }
    const QString domain = hostOf(o.value(QStringLiteral("domain")).toString());
    if (domain.contains(QLatin1Char('.')) || domain.contains(QLatin1Char(':')))
        return domain;
    return {};
}

bool readJson(const QJsonArray &items, QList<SbxPolicyLogEntry> &out)
{
    for (const QJsonValue &v : items) {
        if (out.size() >= kMaxEntries)
            break;
        const QJsonObject o = v.toObject();
        SbxPolicyLogEntry e;
        e.host = hostField(o);
        if (e.host.isEmpty())
            continue;
        e.sandbox = firstString(o, {"sandbox", "sandbox_name", "sandboxName", "sandboxId"});
        const QString decision = firstString(o, {"decision", "action", "result", "status", "verdict"}).toLower();
        e.blocked = decision.contains(QLatin1String("block")) || decision.contains(QLatin1String("deny"))
                    || decision.contains(QLatin1String("denied")) || decision.contains(QLatin1String("reject"));
        if (o.value(QStringLiteral("blocked")).isBool())
            e.blocked = o.value(QStringLiteral("blocked")).toBool();
        e.reason = firstString(o, {"reason", "detail", "rule"});
        e.lastSeen = firstString(o, {"lastSeen", "last_seen", "lastSeenAt", "timestamp", "time"});
        // int64 in the API, which may send it as a string
        const QJsonValue count = o.value(QStringLiteral("count"));
        e.count = count.isString() ? count.toString().toInt() : count.toInt(1);
        out.append(e);
    }
    return true;
}

// Columns of a table separated by two or more spaces; the header names them.
bool readTable(const QByteArray &text, QList<SbxPolicyLogEntry> &out)
{
    const QStringList lines = QString::fromUtf8(text).split(QLatin1Char('\n'));
    static const QRegularExpression gap(QStringLiteral("\\s{2,}"));
    QStringList header;
    for (const QString &line : lines) {
        if (out.size() >= kMaxEntries)
            break;
        const QString t = line.trimmed();
        if (t.isEmpty())
            continue;
        const QStringList cells = t.split(gap);
        if (header.isEmpty()) {
            if (cells.contains(QStringLiteral("HOST")))
                header = cells;
            continue;
        }
        SbxPolicyLogEntry e;
        const auto cell = [&](const char *name) {
            const qsizetype i = header.indexOf(QLatin1String(name));
            return i >= 0 && i < cells.size() ? cells.at(i) : QString();
        };
        e.host = cell("HOST");
        if (e.host.isEmpty())
            continue;
        e.sandbox = cell("SANDBOX");
        e.reason = cell("REASON");
        e.lastSeen = cell("LAST SEEN");
        e.count = cell("COUNT").toInt();
        const QString decision = (cell("DECISION") + cell("REASON") + cell("RULE")).toLower();
        e.blocked = !decision.contains(QLatin1String("allow")) || decision.contains(QLatin1String("block"));
        out.append(e);
    }
    return !header.isEmpty();
}

} // namespace

QStringList policyAllowArgs(const QString &runtimeName, const QStringList &hosts)
{
    QStringList args{QStringLiteral("policy"), QStringLiteral("allow"), QStringLiteral("network")};
    if (!runtimeName.isEmpty())
        args << QStringLiteral("--sandbox") << runtimeName;
    args << hosts.join(QLatin1Char(','));
    return args;
}

QStringList policyRemoveArgs(const QString &runtimeName, const QString &host)
{
    QStringList args{QStringLiteral("policy"), QStringLiteral("rm"), QStringLiteral("network"), QStringLiteral("--resource"), host};
    if (!runtimeName.isEmpty())
        args << QStringLiteral("--sandbox") << runtimeName;
    return args;
}

QStringList policyLogArgs(const QString &runtimeName, int limit)
{
    QStringList args{QStringLiteral("policy"), QStringLiteral("log")};
    if (!runtimeName.isEmpty())
        args << runtimeName;
    args << QStringLiteral("--json") << QStringLiteral("--limit") << QString::number(limit);
    return args;
}

bool parsePolicyLog(const QByteArray &stdoutBytes, QList<SbxPolicyLogEntry> &out)
{
    const QJsonDocument doc = parseSbxJson(stdoutBytes);
    if (doc.isArray())
        return readJson(doc.array(), out);
    if (doc.isObject()) {
        const QJsonObject o = doc.object();
        for (const char *key : {"entries", "logs", "log", "items", "data", "requests", "events"}) {
            if (o.value(QLatin1String(key)).isArray())
                return readJson(o.value(QLatin1String(key)).toArray(), out);
        }
        for (auto it = o.begin(); it != o.end(); ++it) {
            if (it.value().isArray())
                return readJson(it.value().toArray(), out);
        }
        return false;
    }
    return readTable(stdoutBytes, out);
}

bool isRequestableHostPattern(const QString &pattern)
{
    static const QRegularExpression re(QStringLiteral(
        "^(\\*\\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62})(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}))*(:[0-9]{1,5})?$"));
    if (pattern.size() > 253 || !re.match(pattern).hasMatch())
        return false;
    const qsizetype colon = pattern.lastIndexOf(QLatin1Char(':'));
    if (colon > 0) {
        const int port = pattern.mid(colon + 1).toInt();
        if (port < 1 || port > 65535)
            return false;
    }
    return true;
}

} // namespace chat2sbx
