// The health listener: GET /healthz (live once listening) and GET /readyz (200 only when ready).
#pragma once

#include <QHostAddress>
#include <QHttpServer>
#include <QObject>
#include <QString>

namespace faketunnel {

class HealthServer : public QObject
{
    Q_OBJECT
public:
    // textBodies: answer like the real client (text/plain "live" / "ready" / reason) instead of JSON.
    explicit HealthServer(bool textBodies, QObject *parent = nullptr);

    // Returns the bound port, 0 on failure.
    quint16 listen(const QHostAddress &address, quint16 port);
    void setReadiness(bool ready, const QString &reason);
    bool isReady() const { return m_ready; }

private:
    QHttpServerResponse healthz() const;
    QHttpServerResponse readyz() const;

    QHttpServer m_server;
    bool m_textBodies = false;
    bool m_ready = false;
    QString m_reason = QStringLiteral("mcp startup probe pending");
};

} // namespace faketunnel
