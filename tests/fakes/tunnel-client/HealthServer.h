// The health listener of pkg/runtimehealth/health.go: GET /healthz ("live"), GET /readyz (200 "ready"
// or 503 with the reason, text/plain) and GET /metrics (Prometheus text, from a provider).
#pragma once

#include <QHostAddress>
#include <QHttpServer>
#include <QJsonObject>
#include <QObject>
#include <QString>

#include <functional>

namespace faketunnel {

class HealthServer : public QObject
{
    Q_OBJECT
public:
    using MetricsProvider = std::function<QByteArray()>;
    using DetailsProvider = std::function<QJsonObject()>;   // the `components` object
    explicit HealthServer(MetricsProvider metrics, QObject *parent = nullptr);
    // Serves GET /health[?details=true|false] (schema_version 1) as clients newer than v0.0.14 do;
    // without it those routes are 404, as in v0.0.14.
    void serveDetails(DetailsProvider details);

    // Returns the bound port, 0 on failure.
    quint16 listen(const QHostAddress &address, quint16 port);
    // status 200 or 503; body is the text the real client answers ("ready", "mcp probe failed: ...").
    void setReadiness(bool ready, const QString &body);
    bool isReady() const { return m_ready; }
    QString readinessBody() const { return m_body; }

private:
    QHttpServer m_server;
    MetricsProvider m_metrics;
    DetailsProvider m_details;
    bool m_ready = false;
    QString m_body = QStringLiteral("oauth discovery pending");
};

} // namespace faketunnel
