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
#include <QStringList>

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

// The one MCP client of the C++ tests: a QNetworkAccessManager client over real HTTP that sends the
// headers a compliant client sends (Accept both, Content-Type json, Mcp-Session-Id and
// MCP-Protocol-Version once initialized) unless told otherwise. Async calls return a handle that
// fills in when the reply arrives; the synchronous ones run a local event loop (test::waitFor), so a
// server in the same process (the tray tests' Controller) answers meanwhile.
class McpTestClient {
public:
    explicit McpTestClient(const QString &url, const QString &clientName = QStringLiteral("qt-test"));

    QString url() const { return m_url; }
    QString sessionId;
    QString protocolVersion;
    // The 2026-07-28 era: no initialize; every request carries params._meta (version, clientInfo,
    // `capabilities`, and `conversation` as _meta["openai/session"] when set) and the MCP-Protocol-Version,
    // Mcp-Method and Mcp-Name headers. initialize()/open() are not used then.
    void useModernEra(const QJsonObject &capabilities = {}, const QString &conversation = {});
    bool isModern() const { return m_modern; }

    // Raw POST/GET/DELETE. `defaults` adds Accept, Content-Type and the session headers.
    std::shared_ptr<McpHttpReply> sendAsync(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers = {},
                                            bool defaults = true, const QString &url = {});
    McpHttpReply send(const QByteArray &verb, const QByteArray &body, const RawHeaders &headers = {},
                      bool defaults = true, const QString &url = {}, int timeoutMs = 30000);

    QJsonObject requestMessage(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    std::shared_ptr<McpHttpReply> requestAsync(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    McpHttpReply request(const QString &method, const QJsonObject &params = {}, const QJsonValue &id = {});
    McpHttpReply notify(const QString &method, const QJsonObject &params = {});
    McpHttpReply callTool(const QString &name, const QJsonObject &arguments);
    std::shared_ptr<McpHttpReply> callToolAsync(const QString &name, const QJsonObject &arguments, const QJsonValue &id = {});

    // initialize + notifications/initialized; returns the initialize reply.
    McpHttpReply initialize(const QString &version = QStringLiteral("2025-06-18"));
    // initialize + notifications/initialized, both answered as they should be (200, then 202);
    // false with `error` (when given) saying what went wrong.
    bool open(QString *error = nullptr);

    // The CallToolResult ({content, structuredContent, isError}) of tools/call, or
    // {"transportError": "..."} when the exchange itself failed.
    QJsonObject callToolResult(const QString &name, const QJsonObject &arguments = {}, int timeoutMs = 120000);
    QString lastBody;   // the HTTP body of the last callToolResult, for failure messages
    QStringList toolNames();
    // A result as compact JSON (at most 1,500 characters), for failure messages.
    static QString describe(const QJsonObject &result);

    // Aborts the HTTP request of an async reply (the client goes away).
    void abort(const std::shared_ptr<McpHttpReply> &reply);

private:
    bool m_modern = false;
    QJsonObject m_capabilities;
    QString m_conversation;
    QString m_url;
    QString m_clientName;
    QNetworkAccessManager m_nam;
    qint64 m_nextId = 1;
    QList<QPair<std::weak_ptr<McpHttpReply>, QPointer<QNetworkReply>>> m_inFlight;
};

bool waitForReply(const std::shared_ptr<McpHttpReply> &reply, int timeoutMs);

} // namespace chat2sbx::test
