#include "mcp/McpEndpoint.h"

#include "core/JsonRpc.h"
#include "http/HttpReply.h"
#include "mcp/McpDispatcher.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QPointer>

namespace chat2sbx {

namespace {

const QByteArray kJson = QByteArrayLiteral("application/json");
const QByteArray kSessionHeader = QByteArrayLiteral("Mcp-Session-Id");

void sendError(HttpReply &reply, int status, const QJsonValue &id, int code, const QString &message,
               const HttpReply::Headers &headers = {})
{
    reply.send(status, jsonrpc::serialize(jsonrpc::error(id, code, message)), kJson, headers);
}

} // namespace

McpEndpoint::McpEndpoint(McpDispatcher &dispatcher, const Config &config, const QString &localToken, QObject *parent)
    : QObject(parent), m_dispatcher(dispatcher), m_guard(config, localToken)
{
}

McpEndpoint::~McpEndpoint() = default;

void McpEndpoint::install(QHttpServer &http)
{
    QPointer<McpEndpoint> self(this);
    qthttp::route(http, QStringLiteral("/mcp"), [self](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
        if (!self) {
            HttpReply(std::move(responder)).sendEmpty(503);
            return;
        }
        self->handle(request, std::move(responder));
    });
    qthttp::setMissingHandler(http, this, [](const QHttpServerRequest &, QHttpServerResponder &&responder) {
        HttpReply(std::move(responder)).send(404, QByteArrayLiteral("{\"error\":\"not found\"}"), kJson);
    });
}

void McpEndpoint::handle(const QHttpServerRequest &request, QHttpServerResponder &&responder)
{
    auto reply = std::make_shared<HttpReply>(std::move(responder));
    const HttpRequestData data = HttpRequestData::from(request);

    if (const auto rejection = m_guard.checkAccess(data)) {
        const QJsonValue id = data.body.size() <= kMaxBodyBytes ? jsonrpc::peekId(data.body) : QJsonValue();
        HttpReply::Headers headers;
        if (!rejection->wwwAuthenticate.isEmpty())
            headers.append({QByteArrayLiteral("WWW-Authenticate"), rejection->wwwAuthenticate});
        return sendError(*reply, rejection->status, id, jsonrpc::TransportError, rejection->message, headers);
    }
    if (data.method == "POST")
        return handlePost(data, reply);
    if (data.method == "DELETE")
        return handleDelete(data, reply);
    if (data.method == "HEAD")   // no body allowed on a HEAD response
        return void(reply->sendEmpty(405, {{QByteArrayLiteral("Allow"), QByteArrayLiteral("POST, DELETE")}}));
    sendError(*reply, 405, QJsonValue(), jsonrpc::TransportError,
              QStringLiteral("Method Not Allowed: this server has no server-initiated stream; use POST"),
              {{QByteArrayLiteral("Allow"), QByteArrayLiteral("POST, DELETE")}});
}

void McpEndpoint::handleDelete(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply)
{
    const QString sessionId = QString::fromLatin1(request.header("mcp-session-id").trimmed());
    if (sessionId.isEmpty())
        return sendError(*reply, 400, QJsonValue(), jsonrpc::TransportError, QStringLiteral("Bad Request: Mcp-Session-Id header is required"));
    if (m_dispatcher.endSession(sessionId) == McpDispatcher::EndResult::NotFound)
        return sendError(*reply, 404, QJsonValue(), jsonrpc::TransportError, QStringLiteral("Session not found"));
    reply->sendEmpty(200);
}

void McpEndpoint::handlePost(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply)
{
    if (request.body.size() > kMaxBodyBytes)
        return sendError(*reply, 413, QJsonValue(), jsonrpc::TransportError,
                         QStringLiteral("Payload Too Large: the limit is %1 bytes").arg(kMaxBodyBytes));
    // The body is parsed once, by the dispatcher; only a refusal here parses it for its id.
    if (!HttpAccessPolicy::isJsonContentType(request.header("content-type")))
        return sendError(*reply, 415, jsonrpc::peekId(request.body), jsonrpc::TransportError,
                         QStringLiteral("Unsupported Media Type: Content-Type must be application/json"));
    if (!HttpAccessPolicy::acceptsJsonAndSse(request.header("accept")))
        return sendError(*reply, 406, jsonrpc::peekId(request.body), jsonrpc::TransportError,
                         QStringLiteral("Not Acceptable: Client must accept both application/json and text/event-stream"));

    McpMessageContext context;
    context.sessionId = QString::fromLatin1(request.header("mcp-session-id").trimmed());
    if (request.hasHeader("mcp-protocol-version"))
        context.protocolVersion = QString::fromLatin1(request.header("mcp-protocol-version").trimmed());
    if (request.hasHeader("mcp-method"))
        context.method = request.header("mcp-method");
    if (request.hasHeader("mcp-name"))
        context.name = request.header("mcp-name");
    // A modern request's cancellation is its connection closing (2026-07-28 Streamable HTTP).
    context.onCancellable = [reply](std::function<void()> cancel) { reply->onClientGone(std::move(cancel)); };
    m_dispatcher.dispatchBody(request.body, context, [reply](const McpAnswer &answer) {
        if (answer.isAccepted())
            return void(reply->sendEmpty(answer.status));
        HttpReply::Headers headers;
        if (!answer.createdSessionId.isEmpty())
            headers.append({kSessionHeader, answer.createdSessionId.toLatin1()});
        reply->send(answer.status, answer.json, kJson, headers);
    });
}

} // namespace chat2sbx
