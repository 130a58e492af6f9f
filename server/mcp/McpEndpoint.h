#pragma once

#include "mcp/HttpGuard.h"
#include "mcp/McpSessions.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QTimer>

#include <memory>

class QHttpServer;
class QHttpServerRequest;
class QHttpServerResponder;

namespace chat2sbx {

class Clock;
class Database;
class HttpReply;
class ToolCallRunner;
class ToolRegistry;
struct Config;

// MCP Streamable HTTP on /mcp (reference/mcp.md §0-1): POST carries one JSON-RPC message and
// requests are answered with application/json; notifications and client responses get 202; GET
// is 405 (no server-initiated stream); DELETE ends the session. Every other path is 404
// (including tunnel-client's /.well-known OAuth discovery).
// A tools/call stays pending with its HTTP request while the handler works, so a slow tool
// never delays other requests. A cancelled call (notifications/cancelled) is answered
// 200 with JSON-RPC error -32800 "Request cancelled", carrying its id, so the open HTTP request
// ends cleanly; clients have already forgotten the id and ignore it.
class McpEndpoint : public QObject {
    Q_OBJECT
public:
    McpEndpoint(ToolRegistry &tools, Database &db, const Config &config, const Clock &clock,
                const QString &localToken, QObject *parent = nullptr);
    ~McpEndpoint() override;

    // Adds the /mcp route and the 404 handler for everything else.
    void install(QHttpServer &http);

    static constexpr qsizetype kMaxBodyBytes = 4 * 1024 * 1024;
    static const QStringList &supportedProtocolVersions();
    static QString negotiateProtocolVersion(const QString &requested);

    McpSessions &sessions() { return m_sessions; }
    ToolCallRunner &calls() { return *m_calls; }

private:
    void handle(const QHttpServerRequest &request, QHttpServerResponder &&responder);
    void handlePost(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply);
    void handleDelete(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply);
    void handleRequest(McpSession &session, const QJsonValue &id, const QString &method, const QJsonObject &params,
                       const std::shared_ptr<HttpReply> &reply);
    void handleNotification(McpSession &session, const QString &method, const QJsonObject &params);
    QJsonObject initialize(McpSession &session, const QJsonObject &params);

    ToolRegistry &m_tools;
    HttpGuard m_guard;
    McpSessions m_sessions;
    std::unique_ptr<ToolCallRunner> m_calls;
    QTimer m_sweep;
};

} // namespace chat2sbx
