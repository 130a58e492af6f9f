#include "HealthServer.h"

#include <QJsonObject>

namespace faketunnel {

HealthServer::HealthServer(bool textBodies, QObject *parent) : QObject(parent), m_textBodies(textBodies)
{
    m_server.route(QStringLiteral("/healthz"), QHttpServerRequest::Method::Get,
                   [this](const QHttpServerRequest &) { return healthz(); });
    m_server.route(QStringLiteral("/readyz"), QHttpServerRequest::Method::Get,
                   [this](const QHttpServerRequest &) { return readyz(); });
}

quint16 HealthServer::listen(const QHostAddress &address, quint16 port)
{
    return m_server.listen(address, port);
}

void HealthServer::setReadiness(bool ready, const QString &reason)
{
    m_ready = ready;
    m_reason = reason;
}

QHttpServerResponse HealthServer::healthz() const
{
    if (m_textBodies)
        return QHttpServerResponse(QByteArrayLiteral("text/plain; charset=utf-8"), QByteArrayLiteral("live"));
    return QHttpServerResponse(QJsonObject{{QStringLiteral("status"), QStringLiteral("ok")}});
}

QHttpServerResponse HealthServer::readyz() const
{
    const auto status = m_ready ? QHttpServerResponse::StatusCode::Ok
                                : QHttpServerResponse::StatusCode::ServiceUnavailable;
    if (m_textBodies)
        return QHttpServerResponse(QByteArrayLiteral("text/plain; charset=utf-8"),
                                   m_ready ? QByteArrayLiteral("ready") : m_reason.toUtf8(), status);
    QJsonObject body{{QStringLiteral("ready"), m_ready}};
    if (!m_ready)
        body.insert(QStringLiteral("reason"), m_reason);
    return QHttpServerResponse(body, status);
}

} // namespace faketunnel
