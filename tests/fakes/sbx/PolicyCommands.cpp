// `sbx policy ...`: rules, log, check and the approval queue (sbx-contract.md, "Network policy and
// approvals"). Output shapes the contract leaves UNKNOWN are listed in README.md.
#include "Args.h"
#include "Commands.h"
#include "Policy.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace fakesbx {

namespace {

QString pad(const QString &s, int width)
{
    return s.leftJustified(width) + QStringLiteral("   ");
}

bool loadLocked(const Context &, PolicyStore *store, QString *error)
{
    return store->load(error);
}

// host[:port] or a URL → host and port (443 unless given or http://).
bool parseTarget(const QString &target, QString *host, int *port)
{
    if (target.contains(QLatin1String("://"))) {
        const QUrl url(target);
        if (!url.isValid() || url.host().isEmpty())
            return false;
        *host = url.host();
        *port = url.port(url.scheme() == QLatin1String("http") ? 80 : 443);
        return true;
    }
    const qsizetype colon = target.lastIndexOf(QLatin1Char(':'));
    *host = colon > 0 ? target.left(colon) : target;
    *port = colon > 0 ? target.mid(colon + 1).toInt() : 443;
    return !host->isEmpty() && *port > 0 && *port < 65536;
}

int ruleCommand(const Context &ctx, const QString &decision, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {}, {QStringLiteral("--sandbox"), QStringLiteral("--method"), QStringLiteral("--path")});
    if (!p.ok)
        return fail(p.error);
    if (p.positional.size() != 2 || p.positional.first() != QLatin1String("network"))
        return usageError(QStringLiteral("usage: sbx policy %1 network [--sandbox NAME] HOSTS").arg(decision));
    const QString sandbox = p.value(QStringLiteral("--sandbox"));
    QStringList hosts;
    for (const QString &h : p.positional.at(1).split(QLatin1Char(','))) {
        const QString t = h.trimmed();
        if (!validPattern(t))
            return fail(QStringLiteral("ERROR: invalid resource \"%1\"").arg(t));
        hosts << t;
    }
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    if (!sandbox.isEmpty() && !ctx.state.exists(sandbox))
        return fail(QStringLiteral("ERROR: sandbox '%1' not found").arg(sandbox));
    PolicyStore store(ctx.state);
    QString error;
    if (!loadLocked(ctx, &store, &error))
        return fail(error);
    for (const QString &h : std::as_const(hosts))
        store.addRule(sandbox, decision, h);
    if (!store.save(&error))
        return fail(error);
    printOut(QStringLiteral("%1 rule added for %2%3\n")
                 .arg(decision == QLatin1String("allow") ? QStringLiteral("Allow") : QStringLiteral("Deny"),
                      hosts.join(QStringLiteral(", ")),
                      sandbox.isEmpty() ? QString() : QStringLiteral(" (sandbox %1)").arg(sandbox))
                 .toUtf8());
    return 0;
}

int rmCommand(const Context &ctx, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {}, {QStringLiteral("--sandbox"), QStringLiteral("--resource"), QStringLiteral("--id")});
    if (!p.ok)
        return fail(p.error);
    const QString resource = p.value(QStringLiteral("--resource"));
    const QString id = p.value(QStringLiteral("--id"));
    if (p.positional != QStringList{QStringLiteral("network")} || resource.isEmpty() == id.isEmpty())
        return usageError(QStringLiteral("usage: sbx policy rm network --resource HOST|--id ID [--sandbox NAME]"));
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    PolicyStore store(ctx.state);
    QString error;
    if (!loadLocked(ctx, &store, &error))
        return fail(error);
    int removed = 0;
    for (const QString &r : resource.split(QLatin1Char(','), Qt::SkipEmptyParts))
        removed += store.removeRules(p.value(QStringLiteral("--sandbox")), r.trimmed(), QString());
    if (!id.isEmpty())
        removed += store.removeRules(QString(), QString(), id);
    if (removed == 0)
        return fail(QStringLiteral("ERROR: no matching network rule"));
    if (!store.save(&error))
        return fail(error);
    printOut(QStringLiteral("Removed %1 rule(s)\n").arg(removed).toUtf8());
    return 0;
}

int lsCommand(const Context &ctx, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {QStringLiteral("--wide")}, {});
    if (!p.ok)
        return fail(p.error);
    if (p.positional.size() > 1)
        return usageError(QStringLiteral("usage: sbx policy ls [SANDBOX] [--wide]"));
    const QString only = p.positional.value(0);
    PolicyStore store(ctx.state);
    QString error;
    if (!store.load(&error))
        return fail(error);
    const bool wide = p.has(QStringLiteral("--wide"));
    QString out = (wide ? pad(QStringLiteral("ID"), 6) : QString()) + pad(QStringLiteral("SCOPE"), 20)
                  + pad(QStringLiteral("TYPE"), 8) + pad(QStringLiteral("DECISION"), 8) + QStringLiteral("RESOURCES\n");
    for (const PolicyRule &r : std::as_const(store.rules)) {
        if (!only.isEmpty() && r.sandbox != only && !r.sandbox.isEmpty())
            continue;
        out += (wide ? pad(r.id, 6) : QString()) + pad(r.sandbox.isEmpty() ? QStringLiteral("global") : r.sandbox, 20)
               + pad(QStringLiteral("network"), 8) + pad(r.decision, 8) + r.resource + QLatin1Char('\n');
    }
    printOut(out.toUtf8());
    return 0;
}

// Docker's Sandboxes API list of PolicyLogEntry: `domain` is the policy domain that emitted the
// entry, the host is in `resource`, the count an int64 sent as a string.
QJsonObject apiLogShape(const QJsonArray &entries)
{
    QJsonArray out;
    for (const QJsonValue &v : entries) {
        const QJsonObject e = v.toObject();
        out.append(QJsonObject{{QStringLiteral("count"), QString::number(e.value(QStringLiteral("count")).toInt())},
                               {QStringLiteral("decision"), e.value(QStringLiteral("decision"))},
                               {QStringLiteral("domain"), QStringLiteral("network")},
                               {QStringLiteral("firstSeen"), e.value(QStringLiteral("firstSeen"))},
                               {QStringLiteral("lastSeen"), e.value(QStringLiteral("lastSeen"))},
                               {QStringLiteral("proxyType"), e.value(QStringLiteral("proxyType"))},
                               {QStringLiteral("reason"), e.value(QStringLiteral("reason"))},
                               {QStringLiteral("resource"), e.value(QStringLiteral("domain"))}});
    }
    return QJsonObject{{QStringLiteral("entries"), out}, {QStringLiteral("nextPageToken"), QString()}};
}

int logCommand(const Context &ctx, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {QStringLiteral("--json")}, {QStringLiteral("--limit")});
    if (!p.ok)
        return fail(p.error);
    if (p.positional.size() > 1)
        return usageError(QStringLiteral("usage: sbx policy log [SANDBOX] [--json] [--limit N]"));
    bool limitOk = true;
    const int limit = p.has(QStringLiteral("--limit")) ? p.value(QStringLiteral("--limit")).toInt(&limitOk) : 0;
    if (!limitOk || limit < 0)
        return fail(QStringLiteral("invalid argument \"%1\" for \"--limit\" flag").arg(p.value(QStringLiteral("--limit"))));
    const QString only = p.positional.value(0);
    PolicyStore store(ctx.state);
    QString error;
    if (!store.load(&error))
        return fail(error);
    QJsonArray entries;  // newest first
    for (qsizetype i = store.log.size() - 1; i >= 0; --i) {
        const QJsonObject e = store.log.at(i).toObject();
        if (!only.isEmpty() && e.value(QStringLiteral("sandbox")).toString() != only)
            continue;
        if (limit > 0 && entries.size() >= limit)
            break;
        entries.append(e);
    }
    if (p.has(QStringLiteral("--json"))) {
        if (ctx.faults.value(QStringLiteral("FAKE_SBX_POLICY_LOG_SHAPE")).trimmed() == QLatin1String("api")) {
            printOut(QJsonDocument(apiLogShape(entries)).toJson(QJsonDocument::Compact) + '\n');
            return 0;
        }
        printOut(QJsonDocument(entries).toJson(QJsonDocument::Compact) + '\n');
        return 0;
    }
    QString out = pad(QStringLiteral("SANDBOX"), 20) + pad(QStringLiteral("HOST"), 30) + pad(QStringLiteral("PROXY"), 8)
                  + pad(QStringLiteral("RULE"), 16) + pad(QStringLiteral("REASON"), 24) + pad(QStringLiteral("LAST SEEN"), 20)
                  + QStringLiteral("COUNT\n");
    for (const QJsonValue &v : std::as_const(entries)) {
        const QJsonObject e = v.toObject();
        out += pad(e.value(QStringLiteral("sandbox")).toString(), 20) + pad(e.value(QStringLiteral("domain")).toString(), 30)
               + pad(e.value(QStringLiteral("proxyType")).toString(), 8) + pad(e.value(QStringLiteral("rule")).toString(), 16)
               + pad(e.value(QStringLiteral("reason")).toString(), 24) + pad(e.value(QStringLiteral("lastSeen")).toString(), 20)
               + QString::number(e.value(QStringLiteral("count")).toInt()) + QLatin1Char('\n');
    }
    printOut(out.toUtf8());
    return 0;
}

int checkCommand(const Context &ctx, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {QStringLiteral("--json")}, {QStringLiteral("--sandbox")});
    if (!p.ok)
        return fail(p.error);
    if (p.positional.size() != 2 || p.positional.first() != QLatin1String("network"))
        return usageError(QStringLiteral("usage: sbx policy check network [--sandbox S] TARGET [--json]"));
    QString host;
    int port = 0;
    if (!parseTarget(p.positional.at(1), &host, &port))
        return fail(QStringLiteral("ERROR: invalid target \"%1\"").arg(p.positional.at(1)));
    PolicyStore store(ctx.state);
    QString error;
    if (!store.load(&error))
        return fail(error);
    const PolicyDecision d = store.decide(p.value(QStringLiteral("--sandbox")), host, port, false,
                                          store.preset == QLatin1String("allow-all"));
    if (p.has(QStringLiteral("--json")))
        printOut(QJsonDocument(QJsonObject{{QStringLiteral("target"), QStringLiteral("%1:%2").arg(host).arg(port)},
                                           {QStringLiteral("decision"), d.allowed ? QStringLiteral("allow") : QStringLiteral("deny")},
                                           {QStringLiteral("rule"), d.rule}})
                     .toJson(QJsonDocument::Compact) + '\n');
    else
        printOut(QStringLiteral("%1:%2 %3\n").arg(host).arg(port).arg(d.allowed ? QStringLiteral("allowed") : QStringLiteral("denied")).toUtf8());
    return d.allowed ? 0 : 1;
}

int approvalCommand(const Context &ctx, const QStringList &args)
{
    const ParsedArgs p = parseArgs(args, {QStringLiteral("--json")}, {QStringLiteral("--option")});
    if (!p.ok)
        return fail(p.error);
    const QString sub = p.positional.value(0);
    StateLock lock(ctx.state);
    if (!lock.ok())
        return 1;
    PolicyStore store(ctx.state);
    QString error;
    if (!store.load(&error))
        return fail(error);
    if (sub == QLatin1String("ls") && p.positional.size() == 1) {
        if (p.has(QStringLiteral("--json"))) {
            QJsonArray items;
            for (const PolicyApproval &a : std::as_const(store.approvals)) {
                if (a.status == QLatin1String("pending"))
                    items.append(QJsonObject{{QStringLiteral("id"), a.id}, {QStringLiteral("sandbox"), a.sandbox},
                                             {QStringLiteral("domain"), a.host}, {QStringLiteral("status"), a.status},
                                             {QStringLiteral("created"), a.created}});
            }
            printOut(QJsonDocument(items).toJson(QJsonDocument::Compact) + '\n');
            return 0;
        }
        QString out = pad(QStringLiteral("ID"), 6) + pad(QStringLiteral("SANDBOX"), 20) + pad(QStringLiteral("HOST"), 30)
                      + QStringLiteral("CREATED\n");
        for (const PolicyApproval &a : std::as_const(store.approvals)) {
            if (a.status == QLatin1String("pending"))
                out += pad(a.id, 6) + pad(a.sandbox, 20) + pad(a.host, 30) + a.created + QLatin1Char('\n');
        }
        printOut(out.toUtf8());
        return 0;
    }
    if ((sub == QLatin1String("inspect") || sub == QLatin1String("respond")) && p.positional.size() == 2) {
        const QString id = p.positional.at(1);
        for (PolicyApproval &a : store.approvals) {
            if (a.id != id)
                continue;
            if (sub == QLatin1String("inspect")) {
                printOut(QStringLiteral("ID:       %1\nSandbox:  %2\nHost:     %3\nStatus:   %4\nOptions:\n"
                                        "  allow    allow %3 for sandbox %2 (lasting rule)\n"
                                        "  deny     deny %3 for sandbox %2\n")
                             .arg(a.id, a.sandbox, a.host, a.status).toUtf8());
                return 0;
            }
            const QString option = p.value(QStringLiteral("--option"));
            if (option != QLatin1String("allow") && option != QLatin1String("deny"))
                return fail(QStringLiteral("ERROR: invalid option \"%1\" (allow, deny)").arg(option));
            if (a.status != QLatin1String("pending"))
                return fail(QStringLiteral("ERROR: approval %1 is already %2").arg(id, a.status));
            a.status = option == QLatin1String("allow") ? QStringLiteral("allowed") : QStringLiteral("denied");
            store.addRule(a.sandbox, option, a.host.left(a.host.lastIndexOf(QLatin1Char(':'))));
            if (!store.save(&error))
                return fail(error);
            printOut(QStringLiteral("Approval %1 %2\n").arg(id, a.status).toUtf8());
            return 0;
        }
        return fail(QStringLiteral("ERROR: approval '%1' not found").arg(id));
    }
    return usageError(QStringLiteral("usage: sbx policy approval ls [--json] | inspect ID | respond ID --option allow|deny"));
}

int initCommand(const Context &ctx, const QStringList &args)
{
    static const QStringList presets{QStringLiteral("allow-all"), QStringLiteral("balanced"), QStringLiteral("deny-all")};
    if (args.size() != 1 || !presets.contains(args.first()))
        return usageError(QStringLiteral("usage: sbx policy init allow-all|balanced|deny-all"));
    StateLock lock(ctx.state);
    PolicyStore store(ctx.state);
    QString error;
    if (!lock.ok() || !store.load(&error))
        return fail(error);
    store.preset = args.first();
    if (!store.save(&error))
        return fail(error);
    printOut(QStringLiteral("Network policy initialized: %1\n").arg(args.first()).toUtf8());
    return 0;
}

} // namespace

int cmdPolicy(const Context &ctx, const QStringList &args)
{
    const QString sub = args.value(0);
    const QStringList rest = args.mid(1);
    if (sub == QLatin1String("allow") || sub == QLatin1String("deny"))
        return ruleCommand(ctx, sub, rest);
    if (sub == QLatin1String("rm"))
        return rmCommand(ctx, rest);
    if (sub == QLatin1String("ls"))
        return lsCommand(ctx, rest);
    if (sub == QLatin1String("log"))
        return logCommand(ctx, rest);
    if (sub == QLatin1String("check"))
        return checkCommand(ctx, rest);
    if (sub == QLatin1String("approval"))
        return approvalCommand(ctx, rest);
    if (sub == QLatin1String("init"))
        return initCommand(ctx, rest);
    if (sub == QLatin1String("reset"))
        return fail(QStringLiteral("fake sbx: `policy reset` deletes the policy store and stops every sandbox; chat2sbx must never run it"));
    return usageError(QStringLiteral("sbx policy: unknown subcommand \"%1\"").arg(sub));
}

} // namespace fakesbx
