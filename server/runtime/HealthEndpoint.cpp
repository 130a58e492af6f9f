#include "runtime/HealthEndpoint.h"

#include "http/HttpAccessPolicy.h"
#include "runtime/Controller.h"
#include "runtime/StatusReportBuilder.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponse>
#include <QJsonObject>

namespace chat2sbx {

void installHealthEndpoint(QHttpServer &http, Controller &controller)
{
    http.route(QStringLiteral("/healthz"), QHttpServerRequest::Method::Get,
               [&controller](const QHttpServerRequest &request) {
                   // Loopback peers only, and no DNS rebinding: a web page that made its name resolve to
                   // 127.0.0.1 still sends its own Host (and an Origin); `chat2sbx status` sends neither.
                   const HttpRequestData data = HttpRequestData::from(request);
                   const QString host = QString::fromLatin1(data.header("host"));
                   if (!request.remoteAddress().isLoopback() || !HttpAccessPolicy::isLoopbackHostName(HttpAccessPolicy::hostPart(host))
                       || data.hasHeader("origin"))
                       return QHttpServerResponse(QHttpServerResponder::StatusCode::Forbidden);
                   // With the local token required, the details (data root, the tunnel client's pid and
                   // health URL, counts) need it too; without it a process learns only that we run.
                   const QString token = controller.localToken();
                   const StatusReport report = statusFromServer(controller);
                   if (!token.isEmpty()
                       && !HttpAccessPolicy::constantTimeEquals(
                           data.header(controller.config().localTokenHeader.toLower().toUtf8()).trimmed(), token.toUtf8()))
                       return QHttpServerResponse(report.toBareHealthJson());
                   return QHttpServerResponse(report.toHealthJson());
               });
}

} // namespace chat2sbx
