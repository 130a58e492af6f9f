#include "PublicPortDecision.h"

#include "Command.h"

#include "runtime/Services.h"
#include "sandbox/ports/PublicPorts.h"

#include <QDateTime>
#include <QTimer>

#include <memory>
#include <utility>

namespace chat2sbx::app {

QJsonObject publicPortToJson(const PublicPortRequest &r)
{
    QJsonObject o{{QStringLiteral("approval_id"), r.id},
                  {QStringLiteral("kind"), QStringLiteral("public_port")},
                  {QStringLiteral("sandbox_id"), r.sandboxId},
                  {QStringLiteral("port"), r.port},
                  {QStringLiteral("state"), publicPortStateName(r.state)},
                  {QStringLiteral("requested_at"), QDateTime::fromMSecsSinceEpoch(r.requestedAt, Qt::UTC).toString(Qt::ISODate)}};
    if (!r.clientName.isEmpty())
        o.insert(QStringLiteral("client"), r.clientName);
    if (!r.url.isEmpty())
        o.insert(QStringLiteral("url"), r.url);
    if (!r.error.isEmpty())
        o.insert(QStringLiteral("error"), r.error);
    if (r.decidedAt)
        o.insert(QStringLiteral("decided_at"), QDateTime::fromMSecsSinceEpoch(r.decidedAt, Qt::UTC).toString(Qt::ISODate));
    return o;
}

namespace {

void report(CommandContext &ctx, const PublicPortRequest &r)
{
    if (ctx.json)
        return ctx.printJson(publicPortToJson(r));
    switch (r.state) {
    case PublicPortState::Published:
        return ctx.print(QStringLiteral("Approved %1: port %2 of %3 is public at %4 (anyone with the URL can open it)")
                             .arg(r.id).arg(r.port).arg(r.sandboxId, r.url));
    case PublicPortState::Failed:
        return ctx.print(QStringLiteral("Approved %1, but publishing port %2 of %3 failed: %4").arg(r.id).arg(r.port).arg(r.sandboxId, r.error));
    case PublicPortState::Rejected:
        return ctx.print(QStringLiteral("Rejected %1: port %2 of %3 stays off the internet").arg(r.id).arg(r.port).arg(r.sandboxId));
    default:
        return ctx.print(QStringLiteral("Approved %1: port %2 of %3 is being published; sandbox_expose returns its URL")
                             .arg(r.id).arg(r.port).arg(r.sandboxId));
    }
}

} // namespace

void decidePublicPort(CommandContext &ctx, Services &services, const QString &id, bool approve, std::function<void(int)> done)
{
    PublicPorts &ports = *services.publicPorts;
    QString error;
    const std::optional<PublicPortRequest> asked = ports.find(id);
    if (!asked)
        return done(ctx.fail(QStringLiteral("no public port request %1 (chat2sbx approval list shows them)").arg(id)));
    if (!approve) {
        if (!ports.reject(id, QStringLiteral("cli"), error))
            return done(ctx.fail(error));
        report(ctx, *ports.find(id));
        return done(0);
    }
    if (!ports.approve(id, QStringLiteral("cli"), error))
        return done(ctx.fail(error));
    // Until the cloud answered (or kPublishWaitMs): the URL is what the user approved it for.
    auto *waiter = new QObject(&ports);
    auto finished = std::make_shared<bool>(false);
    auto finish = [&ctx, &ports, id, waiter, finished, done] {
        if (std::exchange(*finished, true))
            return;
        waiter->deleteLater();
        report(ctx, *ports.find(id));
        done(0);
    };
    auto answered = [&ports, id] { return ports.find(id)->state != PublicPortState::Approved; };
    QObject::connect(&ports, &PublicPorts::requestsChanged, waiter, [answered, finish] {
        if (answered())
            finish();
    });
    QTimer::singleShot(kPublishWaitMs, waiter, finish);
    if (answered())
        finish();
}

} // namespace chat2sbx::app
