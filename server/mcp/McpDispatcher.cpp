#include "mcp/McpDispatcher.h"

#include "core/JsonRpc.h"
#include "core/LogText.h"
#include "mcp/McpInstructions.h"
#include "mcp/McpResources.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcMcp, "chat2sbx.mcp")

namespace {

McpAnswer message(int status, const QJsonObject &message)
{
    return McpAnswer{status, jsonrpc::serialize(message), {}};
}

McpAnswer errorAnswer(int status, const QJsonValue &id, int code, const QString &text)
{
    return message(status, jsonrpc::error(id, code, text));
}

const QStringList &logLevels()
{
    static const QStringList levels = {QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("notice"),
                                       QStringLiteral("warning"), QStringLiteral("error"), QStringLiteral("critical"),
                                       QStringLiteral("alert"), QStringLiteral("emergency")};
    return levels;
}

} // namespace

McpDispatcher::McpDispatcher(ToolRegistry &tools, ToolCallRunner &calls, const Clock &clock, int sessionIdleSeconds,
                             QObject *parent)
    : QObject(parent), m_tools(tools), m_calls(calls), m_sessions(clock, sessionIdleSeconds)
{
    // A session with a call in flight does not expire: the runner holds the only count of them.
    m_sessions.setBusyCheck([this](const QString &sessionId) { return m_calls.pendingCount(sessionId) > 0; });
    m_calls.setClientNameLookup([this](const QString &sessionId) {
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

McpDispatcher::~McpDispatcher()
{
    m_calls.setClientNameLookup({});
}

const QStringList &McpDispatcher::supportedProtocolVersions()
{
    static const QStringList versions = {QStringLiteral("2025-11-25"), QStringLiteral("2025-06-18"),
                                         QStringLiteral("2025-03-26"), QStringLiteral("2024-11-05")};
    return versions;
}

QString McpDispatcher::negotiateProtocolVersion(const QString &requested)
{
    return supportedProtocolVersions().contains(requested) ? requested : supportedProtocolVersions().first();
}

McpDispatcher::EndResult McpDispatcher::endSession(const QString &sessionId)
{
    if (!m_sessions.find(sessionId))
        return EndResult::NotFound;
    m_calls.cancelSession(sessionId, QStringLiteral("session ended"));
    m_sessions.remove(sessionId);
    qCInfo(lcMcp).noquote() << "MCP session" << sessionId.left(8) + QStringLiteral("... ended by the client");
    return EndResult::Ended;
}

void McpDispatcher::dispatchBody(const QByteArray &body, const McpMessageContext &context, Respond respond)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &parseError);
    if (parseError.error == QJsonParseError::NoError)
        return dispatch(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()), context, std::move(respond));
    // Qt only parses objects and arrays at the top level; a valid JSON scalar is an invalid request.
    const QJsonDocument wrapped = QJsonDocument::fromJson('[' + body + ']');
    if (wrapped.isArray() && wrapped.array().size() == 1)
        return dispatch(wrapped.array().first(), context, std::move(respond));
    respond(errorAnswer(400, QJsonValue(), jsonrpc::ParseError,
                        QStringLiteral("Parse error: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset)));
}

void McpDispatcher::dispatch(const QJsonValue &value, const McpMessageContext &context, Respond respond)
{
    if (value.isArray())
        return respond(errorAnswer(400, QJsonValue(), jsonrpc::InvalidRequest,
                                   QStringLiteral("Invalid Request: JSON-RPC batches are not supported; send one message per POST")));
    if (!value.isObject())
        return respond(errorAnswer(400, QJsonValue(), jsonrpc::InvalidRequest,
                                   QStringLiteral("Invalid Request: the body must be one JSON-RPC message object")));
    const QJsonObject message = value.toObject();
    const QJsonValue id = message.value(QStringLiteral("id"));
    const QJsonValue knownId = jsonrpc::isValidId(id) ? id : QJsonValue();
    if (message.value(QStringLiteral("jsonrpc")) != QLatin1String("2.0"))
        return respond(errorAnswer(400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"jsonrpc\" must be \"2.0\"")));

    enum class Kind { Request, Notification, Response } kind;
    const QJsonValue methodValue = message.value(QStringLiteral("method"));
    if (message.contains(QStringLiteral("method"))) {
        if (!methodValue.isString())
            return respond(errorAnswer(400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"method\" must be a string")));
        if (message.contains(QStringLiteral("id")) && !jsonrpc::isValidId(id))
            return respond(errorAnswer(400, QJsonValue(), jsonrpc::InvalidRequest,
                                       QStringLiteral("Invalid Request: \"id\" must be a string or an integer")));
        kind = message.contains(QStringLiteral("id")) ? Kind::Request : Kind::Notification;
    } else if ((message.contains(QStringLiteral("result")) || message.contains(QStringLiteral("error"))) && jsonrpc::isValidId(id)) {
        kind = Kind::Response;
    } else {
        return respond(errorAnswer(400, knownId, jsonrpc::InvalidRequest,
                                   QStringLiteral("Invalid Request: not a JSON-RPC request, notification or response")));
    }
    const QString method = methodValue.toString();
    const QJsonValue paramsValue = message.value(QStringLiteral("params"));
    if (kind != Kind::Response && !paramsValue.isUndefined() && !paramsValue.isObject())
        return respond(errorAnswer(kind == Kind::Request ? 200 : 400, knownId, jsonrpc::InvalidParams,
                                   QStringLiteral("Invalid params: \"params\" must be an object")));

    if (context.protocolVersion) {
        const QString version = context.protocolVersion->trimmed();
        if (!supportedProtocolVersions().contains(version))
            return respond(errorAnswer(400, knownId, jsonrpc::TransportError,
                                       QStringLiteral("Bad Request: Unsupported protocol version %1 (supported versions: %2)")
                                           .arg(version.left(40), supportedProtocolVersions().join(QStringLiteral(", ")))));
    }

    const QString sessionId = context.sessionId.trimmed();
    McpSession *session = sessionId.isEmpty() ? nullptr : m_sessions.find(sessionId);
    if (!sessionId.isEmpty() && !session)
        return respond(errorAnswer(404, knownId, jsonrpc::TransportError, QStringLiteral("Session not found")));
    if (kind == Kind::Request && method == QLatin1String("initialize")) {
        if (session)
            return respond(errorAnswer(400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized")));
        return initialize(id, paramsValue.toObject(), respond);
    }
    if (!session)
        return respond(errorAnswer(400, knownId, jsonrpc::TransportError,
                                   QStringLiteral("Bad Request: Mcp-Session-Id header is required (send initialize first)")));
    m_sessions.touch(*session);

    switch (kind) {
    case Kind::Notification:
        handleNotification(*session, method, paramsValue.toObject());
        return respond(McpAnswer{202, {}, {}});
    case Kind::Response:
        return respond(McpAnswer{202, {}, {}});   // we never send requests to the client; nothing to match
    case Kind::Request:
        return handleRequest(*session, id, method, paramsValue.toObject(), respond);
    }
}

void McpDispatcher::initialize(const QJsonValue &id, const QJsonObject &params, const Respond &respond)
{
    if (!params.value(QStringLiteral("protocolVersion")).isString())
        return respond(errorAnswer(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"protocolVersion\" must be a string")));
    McpSession &session = m_sessions.create(negotiateProtocolVersion(params.value(QStringLiteral("protocolVersion")).toString()));
    const QJsonObject client = params.value(QStringLiteral("clientInfo")).toObject();
    session.clientName = client.value(QStringLiteral("name")).toString().left(100);
    session.clientVersion = client.value(QStringLiteral("version")).toString().left(50);
    qCInfo(lcMcp).noquote() << "MCP session" << session.id.left(8) + QStringLiteral("... initialized by")
                            << (session.clientName.isEmpty() ? QStringLiteral("(unnamed client)") : logSafe(session.clientName))
                            << logSafe(session.clientVersion) << "requesting protocol"
                            << logSafe(params.value(QStringLiteral("protocolVersion")).toString(), 40)
                            << "-> using" << session.protocolVersion;
    const QJsonObject result{
        {QStringLiteral("protocolVersion"), session.protocolVersion},
        {QStringLiteral("capabilities"), QJsonObject{
             {QStringLiteral("tools"), QJsonObject{{QStringLiteral("listChanged"), false}}},
             {QStringLiteral("logging"), QJsonObject{}},
             {QStringLiteral("resources"), QJsonObject{{QStringLiteral("listChanged"), false}, {QStringLiteral("subscribe"), false}}},
         }},
        {QStringLiteral("serverInfo"), QJsonObject{
             {QStringLiteral("name"), QStringLiteral("chat2sbx")},
             {QStringLiteral("title"), QStringLiteral("chat2sbx")},
             {QStringLiteral("version"), QStringLiteral(CHAT2SBX_VERSION)},
         }},
        {QStringLiteral("instructions"), mcpInstructions()},
    };
    McpAnswer answer = message(200, jsonrpc::result(id, result));
    answer.createdSessionId = session.id;
    respond(answer);
}

void McpDispatcher::handleNotification(McpSession &session, const QString &method, const QJsonObject &params)
{
    if (method == QLatin1String("notifications/initialized")) {
        session.initializedNotified = true;
    } else if (method == QLatin1String("notifications/cancelled")) {
        const QJsonValue requestId = params.value(QStringLiteral("requestId"));
        if (jsonrpc::isValidId(requestId) && m_calls.isPending(session.id, requestId)) {
            qCInfo(lcMcp).noquote() << "client cancelled request" << logSafe(jsonrpc::idKey(requestId).mid(2), 40);
            m_calls.cancel(session.id, requestId, params.value(QStringLiteral("reason")).toString());
        }
    }
    // Other notifications (progress, roots/list_changed, ...) need nothing from us.
}

void McpDispatcher::handleRequest(McpSession &session, const QJsonValue &id, const QString &method,
                                  const QJsonObject &params, const Respond &respond)
{
    if (method == QLatin1String("ping"))
        return respond(message(200, jsonrpc::result(id, QJsonObject{})));
    if (method == QLatin1String("tools/list")) {
        if (params.contains(QStringLiteral("cursor")))
            return respond(errorAnswer(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: unknown cursor")));
        return respond(McpAnswer{200, jsonrpc::serializeResult(id, m_tools.listResultJson()), {}});
    }
    if (method == QLatin1String("resources/list") || method == QLatin1String("resources/templates/list")) {
        if (params.contains(QStringLiteral("cursor")))
            return respond(errorAnswer(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: unknown cursor")));
        return respond(message(200, jsonrpc::result(id, method == QLatin1String("resources/list") ? mcpresources::listResult()
                                                                                                 : mcpresources::templatesListResult())));
    }
    if (method == QLatin1String("resources/read"))
        return readResource(id, params, respond);
    if (method == QLatin1String("logging/setLevel")) {
        const QString level = params.value(QStringLiteral("level")).toString();
        if (!logLevels().contains(level))
            return respond(errorAnswer(200, id, jsonrpc::InvalidParams,
                                       QStringLiteral("Invalid params: \"level\" must be one of %1").arg(logLevels().join(QStringLiteral(", ")))));
        session.logLevel = level;
        return respond(message(200, jsonrpc::result(id, QJsonObject{})));
    }
    if (method == QLatin1String("tools/call"))
        return callTool(session, id, params, respond);
    if (method == QLatin1String("initialize"))
        return respond(errorAnswer(400, id, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized")));
    respond(errorAnswer(200, id, jsonrpc::MethodNotFound, QStringLiteral("Method not found: %1").arg(method.left(100))));
}

void McpDispatcher::readResource(const QJsonValue &id, const QJsonObject &params, const Respond &respond)
{
    const QJsonValue uri = params.value(QStringLiteral("uri"));
    if (!uri.isString())
        return respond(errorAnswer(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"uri\" must be a string")));
    QJsonObject result;
    if (!mcpresources::readResult(uri.toString(), result))
        return respond(message(200, jsonrpc::error(id, jsonrpc::ResourceNotFound, QStringLiteral("Resource not found"),
                                                   QJsonObject{{QStringLiteral("uri"), uri.toString().left(2048)}})));
    respond(message(200, jsonrpc::result(id, result)));
}

void McpDispatcher::callTool(McpSession &session, const QJsonValue &id, const QJsonObject &params, const Respond &respond)
{
    const QString sessionId = session.id;
    QPointer<McpDispatcher> self(this);
    m_calls.call(sessionId, id, params, [self, sessionId, respond](const QByteArray &reply) {
        // A finished call counts as use: the idle clock of its session starts again now (the call
        // is no longer pending, so a lookup could already expire a session idle for longer).
        if (self)
            self->m_sessions.touch(sessionId);
        respond(McpAnswer{200, reply, {}});
    }, session.clientName);
}

} // namespace chat2sbx
