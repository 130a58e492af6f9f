#include "HealthServer.h"

#include <QDateTime>
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
#include <QHttpHeaders>
#endif
#include <QJsonDocument>
#include <QTcpServer>

namespace faketunnel {
namespace {
const QByteArray kText = QByteArrayLiteral("text/plain; charset=utf-8");
}

HealthServer::HealthServer(MetricsProvider metrics, QObject *parent) : QObject(parent), m_metrics(std::move(metrics))
{
    m_server.route(QStringLiteral("/healthz"), QHttpServerRequest::Method::Get,
                   [](const QHttpServerRequest &) { return QHttpServerResponse(kText, QByteArrayLiteral("live")); });
    m_server.route(QStringLiteral("/readyz"), QHttpServerRequest::Method::Get, [this](const QHttpServerRequest &) {
        return QHttpServerResponse(kText, m_body.toUtf8(),
                                   m_ready ? QHttpServerResponse::StatusCode::Ok
                                           : QHttpServerResponse::StatusCode::ServiceUnavailable);
    });
    m_server.route(QStringLiteral("/metrics"), QHttpServerRequest::Method::Get, [this](const QHttpServerRequest &) {
        return QHttpServerResponse(QByteArrayLiteral("text/plain; version=0.0.4; charset=utf-8; escaping=underscores"),
                                   m_metrics());
    });
}

void HealthServer::serveDetails(DetailsProvider details)
{
    m_details = std::move(details);
    m_server.route(QStringLiteral("/health"), QHttpServerRequest::Method::Get, [this](const QHttpServerRequest &request) {
        const QString query = request.query().toString();
        if (!query.isEmpty() && query != QLatin1String("details=true") && query != QLatin1String("details=false"))
            return QHttpServerResponse(kText, QByteArrayLiteral("invalid query"), QHttpServerResponse::StatusCode::BadRequest);
        QJsonObject body{{QStringLiteral("schema_version"), 1}, {QStringLiteral("live"), true}, {QStringLiteral("ready"), m_ready},
                         {QStringLiteral("snapshot_at"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)}};
        if (query == QLatin1String("details=true"))
            body.insert(QStringLiteral("components"), m_details());
        QHttpServerResponse response(QJsonDocument(body).toJson(QJsonDocument::Compact));
#if QT_VERSION >= QT_VERSION_CHECK(6, 8, 0)
        QHttpHeaders headers = response.headers();
        headers.append(QHttpHeaders::WellKnownHeader::CacheControl, "no-store");
        response.setHeaders(std::move(headers));
#else
        response.setHeader(QByteArrayLiteral("Cache-Control"), QByteArrayLiteral("no-store"));
#endif
        return response;
    });
}

quint16 HealthServer::listen(const QHostAddress &address, quint16 port)
{
    // QHttpServer::listen is gone in Qt 6.8; binding a listening QTcpServer works on 6.4 and 6.8.
    auto *tcp = new QTcpServer(&m_server);
    if (!tcp->listen(address, port)) {
        delete tcp;
        return 0;
    }
    m_server.bind(tcp);   // takes it (void in 6.4; in 6.8 false only when not listening)
    return tcp->serverPort();
}

void HealthServer::setReadiness(bool ready, const QString &body)
{
    m_ready = ready;
    m_body = body;
}

} // namespace faketunnel
