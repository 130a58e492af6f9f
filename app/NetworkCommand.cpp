// `chat2sbx network list [--all] | allow <id> [--always] | deny <id> | rules | unrule <rule id>`:
// agents' network access requests and the sbx rules chat2sbx added (README "Networking").
#include "Command.h"

#include "core/Clock.h"
#include "runtime/Services.h"
#include "sandbox/network/NetworkAccess.h"

#include <QJsonArray>
#include <QJsonObject>

namespace chat2sbx::app {
namespace {

QJsonObject requestJson(const NetworkRequest &r)
{
    QJsonObject o{{QStringLiteral("request_id"), r.id},
                  {QStringLiteral("sandbox_id"), r.sandboxId},
                  {QStringLiteral("hosts"), QJsonArray::fromStringList(r.hosts)},
                  {QStringLiteral("status"), networkRequestStateName(r.state)},
                  {QStringLiteral("requested_at"), isoTime(r.requestedAt)},
                  {QStringLiteral("reason"), r.reason},
                  {QStringLiteral("client_name"), r.clientName}};
    if (!r.isPending()) {
        o.insert(QStringLiteral("decided_at"), isoTime(r.decidedAt));
        o.insert(QStringLiteral("decided_by"), r.decidedBy);
        if (r.state == NetworkRequestState::Allowed)
            o.insert(QStringLiteral("scope"), r.always ? QStringLiteral("always") : QStringLiteral("sandbox"));
    }
    return o;
}

QJsonObject ruleJson(const NetworkRule &r)
{
    return {{QStringLiteral("rule_id"), r.id},
            {QStringLiteral("host"), r.host},
            {QStringLiteral("scope"), r.sandboxId.isEmpty() ? QStringLiteral("always") : QStringLiteral("sandbox")},
            {QStringLiteral("sandbox_id"), r.sandboxId.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(r.sandboxId)},
            {QStringLiteral("added_at"), isoTime(r.addedAt)}};
}

int runList(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("usage: chat2sbx network list [--all] [--json]"));
    const bool all = ctx.isSet(QStringLiteral("all"));
    Services n(ctx.config, Clock::system(), Services::Profile::CliNetwork);
    QString error;
    if (!n.openDatabase(error))
        return ctx.fail(error);
    const QList<NetworkRequest> requests = all ? n.network->list() : n.network->pending();
    if (ctx.json) {
        QJsonArray items;
        for (const NetworkRequest &r : requests)
            items.append(requestJson(r));
        ctx.printJson(items);
        return 0;
    }
    if (requests.isEmpty()) {
        ctx.print(all ? QStringLiteral("No network requests.") : QStringLiteral("No pending network requests."));
        return 0;
    }
    QString text;
    for (const NetworkRequest &r : requests) {
        text += QStringLiteral("%1  %2  %3  %4  requested %5\n")
                    .arg(r.id, networkRequestStateName(r.state).leftJustified(8), r.sandboxId, r.hosts.join(QLatin1Char(',')),
                         isoTime(r.requestedAt));
        text += QStringLiteral("    asked by %1%2\n")
                    .arg(r.clientName.isEmpty() ? QStringLiteral("an MCP client") : r.clientName,
                         r.reason.isEmpty() ? QString() : QStringLiteral(": \"%1\"").arg(r.reason));
    }
    if (!all)
        text += QStringLiteral("Allow with: chat2sbx network allow <id> [--always]   Deny with: chat2sbx network deny <id>\n");
    ctx.print(text);
    return 0;
}

void allow(CommandContext &ctx, Services &n, std::function<void(int)> done)
{
    if (ctx.args.size() != 1 || ctx.args.first().startsWith(QLatin1Char('-')))
        return done(ctx.usage(QStringLiteral("usage: chat2sbx network allow <id> [--always]")));
    const QString id = ctx.args.first();
    const bool always = ctx.isSet(QStringLiteral("always"));
    NetworkAccess *network = n.network.get();
    network->allow(id, always, QStringLiteral("cli"), [&ctx, network, id, always, done](bool ok, const QString &why) {
        int code = 1;
        if (!ok) {
            code = ctx.fail(why);
        } else {
            code = 0;
            const std::optional<NetworkRequest> r = network->find(id);
            if (ctx.json && r)
                ctx.printJson(requestJson(*r));
            else if (r)
                ctx.print(QStringLiteral("Allowed %1: %2 %3").arg(id, r->hosts.join(QStringLiteral(", ")),
                                                                   always ? QStringLiteral("for every sandbox")
                                                                          : QStringLiteral("for sandbox ") + r->sandboxId));
        }
        done(code);
    });
}

int deny(CommandContext &ctx, Services &n)
{
    if (ctx.args.size() != 1 || ctx.args.first().startsWith(QLatin1Char('-')))
        return ctx.usage(QStringLiteral("usage: chat2sbx network deny <id>"));
    const QString id = ctx.args.first();
    QString error;
    if (!n.network->deny(id, QStringLiteral("cli"), error))
        return ctx.fail(error);
    if (ctx.json)
        ctx.printJson(requestJson(*n.network->find(id)));
    else
        ctx.print(QStringLiteral("Denied %1").arg(id));
    return 0;
}

int runRules(CommandContext &ctx)
{
    if (!ctx.args.isEmpty())
        return ctx.usage(QStringLiteral("usage: chat2sbx network rules [--json]"));
    Services n(ctx.config, Clock::system(), Services::Profile::CliNetwork);
    QString error;
    if (!n.openDatabase(error))
        return ctx.fail(error);
    const QList<NetworkRule> rules = n.network->rules();
    if (ctx.json) {
        QJsonArray items;
        for (const NetworkRule &r : rules)
            items.append(ruleJson(r));
        ctx.printJson(items);
        return 0;
    }
    if (rules.isEmpty()) {
        ctx.print(QStringLiteral("chat2sbx added no network rules."));
        return 0;
    }
    QString text;
    for (const NetworkRule &r : rules)
        text += QStringLiteral("%1  %2  %3\n").arg(QString::number(r.id).leftJustified(5), r.host.leftJustified(30),
                                                   r.sandboxId.isEmpty() ? QStringLiteral("always") : r.sandboxId);
    ctx.print(text);
    return 0;
}

void unrule(CommandContext &ctx, Services &n, std::function<void(int)> done)
{
    bool numeric = false;
    const qint64 ruleId = ctx.args.value(0).toLongLong(&numeric);
    if (ctx.args.size() != 1 || !numeric)
        return done(ctx.usage(QStringLiteral("usage: chat2sbx network unrule <rule id>")));
    n.network->removeRule(ruleId, [&ctx, ruleId, done](bool ok, const QString &why) {
        const int code = ok ? 0 : ctx.fail(why);
        if (ok) {
            if (ctx.json)
                ctx.printJson(QJsonObject{{QStringLiteral("rule_id"), ruleId}, {QStringLiteral("removed"), true}});
            else
                ctx.print(QStringLiteral("Removed network rule %1").arg(ruleId));
        }
        done(code);
    });
}

const bool registeredList = registerCommand({QStringLiteral("network list"), QStringLiteral("network list [--all] [--json]"),
                                             QStringLiteral("List agents' pending network access requests"), false, runList,
                                             {QCommandLineOption(QStringLiteral("all"), QStringLiteral("decided requests too"))}});
const bool registeredAllow = registerCommand({QStringLiteral("network allow"), QStringLiteral("network allow <id> [--always]"),
                                              QStringLiteral("Allow a network request (for its sandbox, or --always for all)"),
                                              false, nullptr,
                                              {QCommandLineOption(QStringLiteral("always"), QStringLiteral("allow for every sandbox"))},
                                              allow, true});
const bool registeredDeny = registerCommand({QStringLiteral("network deny"), QStringLiteral("network deny <id>"),
                                             QStringLiteral("Deny a network request"), false, nullptr, {},
                                             [](CommandContext &ctx, Services &n, std::function<void(int)> done) { done(deny(ctx, n)); },
                                             true});
const bool registeredRules = registerCommand({QStringLiteral("network rules"), QStringLiteral("network rules [--json]"),
                                              QStringLiteral("List the sbx network rules chat2sbx added"), false, runRules});
const bool registeredUnrule = registerCommand({QStringLiteral("network unrule"), QStringLiteral("network unrule <rule id>"),
                                               QStringLiteral("Remove a network rule chat2sbx added"), false, nullptr, {}, unrule, true});

} // namespace
} // namespace chat2sbx::app
