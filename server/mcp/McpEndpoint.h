#pragma once

#include "http/HttpAccessPolicy.h"

#include <QObject>

#include <memory>

class QHttpServer;
class QHttpServerRequest;
class QHttpServerResponder;

namespace chat2sbx {

class HttpReply;
class McpDispatcher;
struct Config;

// MCP Streamable HTTP on /mcp (reference/mcp.md §0-1, §5), the transport around McpDispatcher for
// both protocol eras: access rules (HttpAccessPolicy), body size, Content-Type and Accept, and the
// headers MCP defines (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name). POST carries one JSON-RPC message, answered with application/json
// (notifications and client responses get 202); GET is 405 (no server-initiated stream); DELETE
// ends the session. Every other path is 404 (including tunnel-client's /.well-known OAuth discovery).
// A tools/call keeps its HTTP request open until the dispatcher answers, so a slow tool never delays
// other requests; a cancelled call is answered 200 with JSON-RPC error -32800 "Request cancelled".
class McpEndpoint : public QObject {
    Q_OBJECT
public:
    McpEndpoint(McpDispatcher &dispatcher, const Config &config, const QString &localToken, QObject *parent = nullptr);
    ~McpEndpoint() override;

    // Adds the /mcp route and the 404 handler for everything else.
    void install(QHttpServer &http);

    static constexpr qsizetype kMaxBodyBytes = 4 * 1024 * 1024;

private:
    void handle(const QHttpServerRequest &request, QHttpServerResponder &&responder);
    void handlePost(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply);
    void handleDelete(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply);

    // Outlives this: Controller declares the dispatcher before the endpoint (runtime/Controller.h).
    McpDispatcher &m_dispatcher;
    HttpAccessPolicy m_guard;
};

} // namespace chat2sbx
