#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QNetworkAccessManager>
#include <QPair>
#include <QPointer>
#include <QString>

#include <memory>

class QNetworkReply;

namespace chat2sbx::test {

// The outcome of one HTTP exchange with /mcp, as a real client sees it.
struct McpHttpReply {
    bool done = false;
    int status = 0;
    QByteArray body;
    QJsonObject json;            // the body parsed, when it is a JSON object
    QList<QPair<QByteArray, QByteArray>> headers;
    QString networkError;
    qint64 elapsedMs = 0;
    QByteArray header(const QByteArray &name) const;
    int errorCode() const { return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("code")).toInt(); }
    QString errorMessage() const { return json.value(QStringLiteral("error")).toObject().value(QStringLiteral("message")).toString(); }
    QJsonObject result() const { return json.value(QStringLiteral("result")).toObject(); }
};

using RawHeaders = QList<QPair<QByteArray, QByteArray>>;

// A QNetworkAccessManager MCP client for tests: sends the headers a compliant client sends
// (Accept both, Content-Type json, Mcp-Session-Id and MCP-Protocol-Version once initialized)
// unless told otherwise. Async calls return a handle that fills in when the reply arrives.
class McpHttpClient {
public:
    explicit McpHttpClient(const QString &url);

    QString url() const { return m_url; }
    QString sessionId;
    QString protocolVersion;

    // Raw POST/GET/DELETE. `defaults` adds Accept, Content-Type and the session headers.
    std::shared_ptr<McpHttpReply> sendAsync(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers = {},
                                            bool defaults = true, const QString &url = {});
    McpHttpReply send(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers = {},
                      bool defaults = true, const QString &url = {});

    QJsonObject requestMessage(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    std::shared_ptr<McpHttpReply> requestAsync(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    McpHttpReply request(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    McpHttpReply notify(const QString &method, const QJsonObject &params = {});
    McpHttpReply callTool(const QString &name, const QJsonObject &arguments);
    std::shared_ptr<McpHttpReply> callToolAsync(const QString &name, const QJsonObject &arguments, const QJsonValue &id = {});

    // initialize + notifications/initialized; returns the initialize reply.
    McpHttpReply initialize(const QString &version = QStringLiteral("2025-06-18"));

    // Aborts the HTTP request of an async reply (the client goes away).
    void abort(const std::shared_ptr<McpHttpReply> &reply);

private:
    QString m_url;
    QNetworkAccessManager m_nam;
    qint64 m_nextId = 1;
    QList<QPair<std::weak_ptr<McpHttpReply>, QPointer<QNetworkReply>>> m_inFlight;
};

bool waitForReply(const std::shared_ptr<McpHttpReply> &reply, int timeoutMs);

} // namespace chat2sbx::test
