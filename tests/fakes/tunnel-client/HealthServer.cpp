#include "HealthServer.h"

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

quint16 HealthServer::listen(const QHostAddress &address, quint16 port)
{
    return m_server.listen(address, port);
}

void HealthServer::setReadiness(bool ready, const QString &body)
{
    m_ready = ready;
    m_body = body;
}

} // namespace faketunnel
