#include "runtime/HealthEndpoint.h"

#include "mcp/HttpGuard.h"
#include "runtime/Controller.h"
#include "state/Database.h"
#include "tunnel/TunnelSupervisor.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QJsonObject>
#include <QSqlQuery>

namespace chat2sbx {

void installHealthEndpoint(QHttpServer &http, Controller &controller)
{
    http.route(QStringLiteral("/healthz"), QHttpServerRequest::Method::Get,
               [&controller](const QHttpServerRequest &request) {
                   // Loopback peers only, and no DNS rebinding: a web page that made its name resolve to
                   // 127.0.0.1 still sends its own Host (and an Origin); `chat2sbx status` sends neither.
                   const HttpRequestData data = HttpRequestData::from(request);
                   const QString host = QString::fromLatin1(data.header("host"));
                   if (!request.remoteAddress().isLoopback() || !HttpGuard::isLoopbackHostName(HttpGuard::hostPart(host))
                       || data.hasHeader("origin"))
                       return QHttpServerResponse(QHttpServerResponder::StatusCode::Forbidden);
                   // With the local token required, the details (data root, the tunnel client's pid and
                   // health URL, counts) need it too; without it a process learns only that we run.
                   const QString token = controller.localToken();
                   if (!token.isEmpty()
                       && !HttpGuard::constantTimeEquals(
                           data.header(controller.config().localTokenHeader.toLower().toUtf8()).trimmed(), token.toUtf8())) {
                       const QJsonObject tunnel{{QStringLiteral("enabled"), controller.config().enableTunnel},
                                                {QStringLiteral("state"), controller.config().enableTunnel
                                                                              ? controller.tunnel().toJson().value(QStringLiteral("state"))
                                                                              : QJsonValue(QStringLiteral("disabled"))}};
                       return QHttpServerResponse(QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")},
                                                              {QStringLiteral("name"), QStringLiteral("chat2sbx")},
                                                              {QStringLiteral("tunnel"), tunnel}});
                   }
                   qint64 active = 0;
                   QSqlQuery q(controller.database().handle());
                   if (q.exec(QStringLiteral("SELECT COUNT(*) FROM sandboxes WHERE state IN ('creating','running','destroying')"))
                       && q.next())
                       active = q.value(0).toLongLong();
                   qint64 warm = 0;
                   if (q.exec(QStringLiteral("SELECT COUNT(*) FROM warm_sandboxes WHERE state = 'ready'")) && q.next())
                       warm = q.value(0).toLongLong();
                   qint64 pendingApprovals = 0;
                   if (q.exec(QStringLiteral("SELECT COUNT(*) FROM approvals WHERE state = 'pending'")) && q.next())
                       pendingApprovals = q.value(0).toLongLong();
                   // tunnel (issue 7): the supervisor's state for `chat2sbx status` and the tray.
                   QJsonObject tunnel = controller.tunnel().toJson();
                   tunnel.insert(QStringLiteral("enabled"), controller.config().enableTunnel);
                   if (!controller.config().enableTunnel)
                       tunnel.insert(QStringLiteral("state"), QStringLiteral("disabled"));
                   const QJsonObject body{
                       {QStringLiteral("status"), QStringLiteral("ok")},
                       {QStringLiteral("name"), QStringLiteral("chat2sbx")},
                       {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
                       {QStringLiteral("uptimeMs"), controller.uptimeMs()},
                       {QStringLiteral("activeSandboxes"), active},
                       {QStringLiteral("maxActiveSandboxes"), controller.config().maxActiveSandboxes},
                       {QStringLiteral("warmSandboxes"), warm},
                       {QStringLiteral("pendingApprovals"), pendingApprovals},
                       {QStringLiteral("dataRoot"), controller.config().dataRoot},
                       {QStringLiteral("tunnel"), tunnel},
                   };
                   return QHttpServerResponse(body);
               });
}

} // namespace chat2sbx
