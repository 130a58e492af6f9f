#include "mcp/McpEndpoint.h"

#include "config/Config.h"
#include "mcp/HttpReply.h"
#include "mcp/JsonRpc.h"
#include "mcp/McpInstructions.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolRegistry.h"

#include <QHttpServer>
#include <QHttpServerRequest>
#include <QHttpServerResponder>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcMcp, "chat2sbx.mcp")

namespace {

const QByteArray kJson = QByteArrayLiteral("application/json");
const QByteArray kSessionHeader = QByteArrayLiteral("Mcp-Session-Id");

void sendMessage(HttpReply &reply, int status, const QJsonObject &message, const HttpReply::Headers &headers = {})
{
    reply.send(status, jsonrpc::serialize(message), kJson, headers);
}

void sendError(HttpReply &reply, int status, const QJsonValue &id, int code, const QString &message,
               const HttpReply::Headers &headers = {})
{
    sendMessage(reply, status, jsonrpc::error(id, code, message), headers);
}

const QStringList &logLevels()
{
    static const QStringList levels = {QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("notice"),
                                       QStringLiteral("warning"), QStringLiteral("error"), QStringLiteral("critical"),
                                       QStringLiteral("alert"), QStringLiteral("emergency")};
    return levels;
}

} // namespace

McpEndpoint::McpEndpoint(ToolRegistry &tools, Database &db, const Config &config, const Clock &clock,
                         const QString &localToken, QObject *parent)
    : QObject(parent),
      m_tools(tools),
      m_guard(config, localToken),
      m_sessions(clock, config.sessionIdleSeconds),
      m_calls(std::make_unique<ToolCallRunner>(tools, db, clock))
{
    m_calls->setClientNameLookup([this](const QString &sessionId) {
        const McpSession *s = m_sessions.find(sessionId);
        return s ? s->clientName : QString();
    });
    // Lookups expire sessions exactly; the sweep only frees memory of sessions nobody asks for.
    m_sweep.setInterval(int(qBound(qint64(1000), m_sessions.idleMs() / 2, qint64(60000))));
    connect(&m_sweep, &QTimer::timeout, this, [this] {
        for (const QString &id : m_sessions.sweep())
            qCInfo(lcMcp).noquote() << "MCP session" << id.left(8) + QStringLiteral("... expired after")
                                    << m_sessions.idleMs() / 1000 << "s idle";
    });
    m_sweep.start();
}

McpEndpoint::~McpEndpoint() = default;

const QStringList &McpEndpoint::supportedProtocolVersions()
{
    static const QStringList versions = {QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                         QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
    return versions;
}

QString McpEndpoint::negotiateProtocolVersion(const QString &requested)
{
    return supportedProtocolVersions().contains(requested) ? requested : supportedProtocolVersions().first();
}

void McpEndpoint::install(QHttpServer &http)
{
    QPointer<McpEndpoint> self(this);
    http.route(QStringLiteral("/mcp"), [self](const QHttpServerRequest &request, QHttpServerResponder &&responder) {
        if (!self) {
            HttpReply(std::move(responder)).sendEmpty(503);
            return;
        }
        self->handle(request, std::move(responder));
    });
    http.setMissingHandler([](const QHttpServerRequest &, QHttpServerResponder &&responder) {
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
    if (!m_sessions.find(sessionId))
        return sendError(*reply, 404, QJsonValue(), jsonrpc::TransportError, QStringLiteral("Session not found"));
    m_calls->cancelSession(sessionId, QStringLiteral("session ended"));
    m_sessions.remove(sessionId);
    qCInfo(lcMcp).noquote() << "MCP session" << sessionId.left(8) + QStringLiteral("... ended by the client");
    reply->sendEmpty(200);
}

void McpEndpoint::handlePost(const HttpRequestData &request, const std::shared_ptr<HttpReply> &reply)
{
    if (request.body.size() > kMaxBodyBytes)
        return sendError(*reply, 413, QJsonValue(), jsonrpc::TransportError,
                         QStringLiteral("Payload Too Large: the limit is %1 bytes").arg(kMaxBodyBytes));
    const QJsonValue peekedId = jsonrpc::peekId(request.body);
    if (!HttpGuard::isJsonContentType(request.header("content-type")))
        return sendError(*reply, 415, peekedId, jsonrpc::TransportError,
                         QStringLiteral("Unsupported Media Type: Content-Type must be application/json"));
    if (!HttpGuard::acceptsJsonAndSse(request.header("accept")))
        return sendError(*reply, 406, peekedId, jsonrpc::TransportError,
                         QStringLiteral("Not Acceptable: Client must accept both application/json and text/event-stream"));

    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(request.body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Qt only parses objects and arrays at the top level; valid JSON scalars are invalid requests.
        const QJsonDocument wrapped = QJsonDocument::fromJson('[' + request.body + ']');
        if (wrapped.isArray() && wrapped.array().size() == 1)
            return sendError(*reply, 400, QJsonValue(), jsonrpc::InvalidRequest,
                             QStringLiteral("Invalid Request: the body must be one JSON-RPC message object"));
    }
    if (parseError.error != QJsonParseError::NoError)
        return sendError(*reply, 400, QJsonValue(), jsonrpc::ParseError,
                         QStringLiteral("Parse error: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset));
    if (doc.isArray())
        return sendError(*reply, 400, QJsonValue(), jsonrpc::InvalidRequest,
                         QStringLiteral("Invalid Request: JSON-RPC batches are not supported; send one message per POST"));
    const QJsonObject message = doc.object();
    const QJsonValue id = message.value(QStringLiteral("id"));
    const QJsonValue knownId = jsonrpc::isValidId(id) ? id : QJsonValue();
    if (message.value(QStringLiteral("jsonrpc")) != QLatin1String("2.0"))
        return sendError(*reply, 400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"jsonrpc\" must be \"2.0\""));

    enum class Kind { Request, Notification, Response } kind;
    const QJsonValue methodValue = message.value(QStringLiteral("method"));
    if (message.contains(QStringLiteral("method"))) {
        if (!methodValue.isString())
            return sendError(*reply, 400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"method\" must be a string"));
        if (message.contains(QStringLiteral("id")) && !jsonrpc::isValidId(id))
            return sendError(*reply, 400, QJsonValue(), jsonrpc::InvalidRequest,
                             QStringLiteral("Invalid Request: \"id\" must be a string or an integer"));
        kind = message.contains(QStringLiteral("id")) ? Kind::Request : Kind::Notification;
    } else if ((message.contains(QStringLiteral("result")) || message.contains(QStringLiteral("error"))) && jsonrpc::isValidId(id)) {
        kind = Kind::Response;
    } else {
        return sendError(*reply, 400, knownId, jsonrpc::InvalidRequest,
                         QStringLiteral("Invalid Request: not a JSON-RPC request, notification or response"));
    }
    const QString method = methodValue.toString();
    const QJsonValue paramsValue = message.value(QStringLiteral("params"));
    if (kind != Kind::Response && !paramsValue.isUndefined() && !paramsValue.isObject())
        return sendError(*reply, kind == Kind::Request ? 200 : 400, knownId, jsonrpc::InvalidParams,
                         QStringLiteral("Invalid params: \"params\" must be an object"));

    if (request.hasHeader("mcp-protocol-version")) {
        const QString version = QString::fromLatin1(request.header("mcp-protocol-version").trimmed());
        if (!supportedProtocolVersions().contains(version))
            return sendError(*reply, 400, knownId, jsonrpc::TransportError,
                             QStringLiteral("Bad Request: Unsupported protocol version %1 (supported versions: %2)")
                                 .arg(version.left(40), supportedProtocolVersions().join(QStringLiteral(", "))));
    }

    const QString sessionId = QString::fromLatin1(request.header("mcp-session-id").trimmed());
    McpSession *session = sessionId.isEmpty() ? nullptr : m_sessions.find(sessionId);
    if (!sessionId.isEmpty() && !session)
        return sendError(*reply, 404, knownId, jsonrpc::TransportError, QStringLiteral("Session not found"));
    if (kind == Kind::Request && method == QLatin1String("initialize")) {
        if (session)
            return sendError(*reply, 400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized"));
        const QJsonObject params = paramsValue.toObject();
        if (!params.value(QStringLiteral("protocolVersion")).isString())
            return sendError(*reply, 200, knownId, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"protocolVersion\" must be a string"));
        McpSession &created = m_sessions.create(negotiateProtocolVersion(params.value(QStringLiteral("protocolVersion")).toString()));
        const QJsonObject result = initialize(created, params);
        return sendMessage(*reply, 200, jsonrpc::result(id, result), {{kSessionHeader, created.id.toLatin1()}});
    }
    if (!session)
        return sendError(*reply, 400, knownId, jsonrpc::TransportError,
                         QStringLiteral("Bad Request: Mcp-Session-Id header is required (send initialize first)"));
    m_sessions.touch(*session);

    switch (kind) {
    case Kind::Notification:
        handleNotification(*session, method, paramsValue.toObject());
        reply->sendEmpty(202);
        return;
    case Kind::Response:
        reply->sendEmpty(202);   // we never send requests to the client; nothing to match
        return;
    case Kind::Request:
        handleRequest(*session, id, method, paramsValue.toObject(), reply);
        return;
    }
}

QJsonObject McpEndpoint::initialize(McpSession &session, const QJsonObject &params)
{
    const QJsonObject client = params.value(QStringLiteral("clientInfo")).toObject();
    session.clientName = client.value(QStringLiteral("name")).toString().left(100);
    session.clientVersion = client.value(QStringLiteral("version")).toString().left(50);
    qCInfo(lcMcp).noquote() << "MCP session" << session.id.left(8) + QStringLiteral("... initialized by")
                            << (session.clientName.isEmpty() ? QStringLiteral("(unnamed client)") : session.clientName)
                            << session.clientVersion << "requesting protocol"
                            << params.value(QStringLiteral("protocolVersion")).toString().left(40)
                            << "-> using" << session.protocolVersion;
    return {
        {QStringLiteral("protocolVersion"), session.protocolVersion},
        {QStringLiteral("capabilities"), QJsonObject{
             {QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
             {QStringLiteral("logging"), QJsonObject{}},
         }},
        {QStringLiteral("serverInfo"), QJsonObject{
             {QStringLiteral("name"), QStringLiteral("chat2sbx")},
             {QStringLiteral("title"), QStringLiteral("chat2sbx")},
             {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
         }},
        {QStringLiteral("instructions"), mcpInstructions()},
    };
}

void McpEndpoint::handleNotification(McpSession &session, const QString &method, const QJsonObject &params)
{
    if (method == QLatin1String("notifications/initialized")) {
        session.initializedNotified = true;
    } else if (method == QLatin1String("notifications/cancelled")) {
        const QJsonValue requestId = params.value(QStringLiteral("requestId"));
        if (jsonrpc::isValidId(requestId) && m_calls->isPending(session.id, requestId)) {
            qCInfo(lcMcp).noquote() << "client cancelled request" << jsonrpc::idKey(requestId).mid(2).left(40);
            m_calls->cancel(session.id, requestId, params.value(QStringLiteral("reason")).toString());
        }
    }
    // Other notifications (progress, roots/list_changed, ...) need nothing from us.
}

void McpEndpoint::handleRequest(McpSession &session, const QJsonValue &id, const QString &method, const QJsonObject &params,
                                const std::shared_ptr<HttpReply> &reply)
{
    if (method == QLatin1String("ping"))
        return sendMessage(*reply, 200, jsonrpc::result(id, QJsonObject{}));
    if (method == QLatin1String("tools/list")) {
        if (params.contains(QStringLiteral("cursor")))
            return sendError(*reply, 200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: unknown cursor"));
        return void(reply->send(200, jsonrpc::serializeResult(id, m_tools.listResultJson()), kJson));
    }
    if (method == QLatin1String("logging/setLevel")) {
        const QString level = params.value(QStringLiteral("level")).toString();
        if (!logLevels().contains(level))
            return sendError(*reply, 200, id, jsonrpc::InvalidParams,
                             QStringLiteral("Invalid params: \"level\" must be one of %1").arg(logLevels().join(QStringLiteral(", "))));
        session.logLevel = level;
        return sendMessage(*reply, 200, jsonrpc::result(id, QJsonObject{}));
    }
    if (method == QLatin1String("tools/call")) {
        const QString sessionId = session.id;
        ++session.pendingCalls;
        QPointer<McpEndpoint> self(this);
        m_calls->call(sessionId, id, params, [self, sessionId, reply](const QJsonObject &message) {
            if (self)
                if (McpSession *s = self->m_sessions.find(sessionId)) {
                    s->pendingCalls = qMax(0, s->pendingCalls - 1);
                    self->m_sessions.touch(*s);
                }
            sendMessage(*reply, 200, message);
        });
        return;
    }
    if (method == QLatin1String("initialize"))
        return sendError(*reply, 400, id, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized"));
    sendError(*reply, 200, id, jsonrpc::MethodNotFound, QStringLiteral("Method not found: %1").arg(method.left(100)));
}

} // namespace chat2sbx
