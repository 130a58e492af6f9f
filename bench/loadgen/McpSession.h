#pragma once
// One MCP client session (Streamable HTTP, JSON responses) on its own keep-alive connection.
#include "HttpConnection.h"

#include <QJsonObject>
#include <QUrl>

namespace chat2sbx::bench {

class McpSession : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const HttpResponse &)>;
    explicit McpSession(const QUrl &url, QObject *parent = nullptr);

    // initialize + notifications/initialized; done(error) with an empty error on success.
    void open(std::function<void(const QString &error)> done);
    // A JSON-RPC request with the next id; the body is pre-serialised by the caller when hot.
    void send(const QByteArray &method, const QJsonObject &params, Done done);
    void sendRaw(const QByteArray &jsonRpcBody, Done done);
    // Builds the body of a request (id is filled in per call by sendPrepared).
    QByteArray requestBody(const QByteArray &method, const QJsonObject &params);
    void close(std::function<void()> done);   // DELETE the session

    const QByteArray &sessionId() const { return m_sessionId; }

private:
    QList<QPair<QByteArray, QByteArray>> headers() const;

    QUrl m_url;
    QByteArray m_path;
    HttpConnection m_conn;
    QByteArray m_sessionId;
    QByteArray m_protocolVersion = QByteArrayLiteral("2025-06-18");
    qint64 m_nextId = 1;
};

// Runs one request to completion in a local event loop (setup and sequential benchmarks only).
HttpResponse callSync(McpSession &s, const QByteArray &method, const QJsonObject &params);
QString openSync(McpSession &s);
// JSON-RPC result object of a response, or an empty object with error set.
QJsonObject resultOf(const HttpResponse &r, QString &error);

} // namespace chat2sbx::bench
