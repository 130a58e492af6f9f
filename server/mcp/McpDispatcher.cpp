#include "mcp/McpDispatcher.h"

#include "core/JsonRpc.h"
#include "core/LogText.h"
#include "mcp/ModernEnvelope.h"
#include "mcp/ProtocolVersions.h"
#include "mcp/ServerDescription.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcMcp, "chat2sbx.mcp")

namespace {

const QStringList &logLevels()
{
    static const QStringList levels = {QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("notice"),
                                       QStringLiteral("warning"), QStringLiteral("error"), QStringLiteral("critical"),
                                       QStringLiteral("alert"), QStringLiteral("emergency")};
    return levels;
}

McpClient clientOf(const McpSession &session)
{
    return McpClient{session.clientName, session.clientVersion, session.protocolVersion, session.clientCapabilities, false};
}

} // namespace

McpDispatcher::McpDispatcher(ToolRegistry &tools, ToolCallRunner &calls, const Clock &clock, int sessionIdleSeconds,
                             QObject *parent)
    : QObject(parent), m_tools(tools), m_calls(calls), m_sessions(clock, sessionIdleSeconds)
{
    // A session with a call in flight does not expire: the runner holds the only count of them.
    m_sessions.setBusyCheck([this](const QString &sessionId) { return m_calls.pendingCount(sessionId) > 0; });
    // Lookups expire sessions exactly; the sweep only frees memory of sessions nobody asks for.
    m_sweep.setInterval(int(qBound(qint64(1000), m_sessions.idleMs() / 2, qint64(60000))));
    connect(&m_sweep, &QTimer::timeout, this, [this] {
        for (const QString &id : m_sessions.sweep())
            qCInfo(lcMcp).noquote() << "MCP session" << id.left(8) + QStringLiteral("... expired after")
                                    << m_sessions.idleMs() / 1000 << "s idle";
    });
    m_sweep.start();
}

McpDispatcher::~McpDispatcher() = default;

QString McpDispatcher::negotiateProtocolVersion(const QString &requested)
{
    return protocolversions::isLegacy(requested) ? requested : protocolversions::legacy().first();
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
    respond(McpAnswer::error(400, QJsonValue(), jsonrpc::ParseError,
                             QStringLiteral("Parse error: %1 at offset %2").arg(parseError.errorString()).arg(parseError.offset)));
}

void McpDispatcher::dispatch(const QJsonValue &value, const McpMessageContext &context, Respond respond)
{
    if (value.isArray())
        return respond(McpAnswer::error(400, QJsonValue(), jsonrpc::InvalidRequest,
                                        QStringLiteral("Invalid Request: JSON-RPC batches are not supported; send one message per POST")));
    if (!value.isObject())
        return respond(McpAnswer::error(400, QJsonValue(), jsonrpc::InvalidRequest,
                                        QStringLiteral("Invalid Request: the body must be one JSON-RPC message object")));
    const QJsonObject message = value.toObject();
    const QJsonValue id = message.value(QStringLiteral("id"));
    const QJsonValue knownId = jsonrpc::isValidId(id) ? id : QJsonValue();
    if (message.value(QStringLiteral("jsonrpc")) != QLatin1String("2.0"))
        return respond(McpAnswer::error(400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"jsonrpc\" must be \"2.0\"")));

    McpMessageKind kind;
    const QJsonValue methodValue = message.value(QStringLiteral("method"));
    if (message.contains(QStringLiteral("method"))) {
        if (!methodValue.isString())
            return respond(McpAnswer::error(400, knownId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: \"method\" must be a string")));
        if (message.contains(QStringLiteral("id")) && !jsonrpc::isValidId(id))
            return respond(McpAnswer::error(400, QJsonValue(), jsonrpc::InvalidRequest,
                                            QStringLiteral("Invalid Request: \"id\" must be a string or an integer")));
        kind = message.contains(QStringLiteral("id")) ? McpMessageKind::Request : McpMessageKind::Notification;
    } else if ((message.contains(QStringLiteral("result")) || message.contains(QStringLiteral("error"))) && jsonrpc::isValidId(id)) {
        kind = McpMessageKind::Response;
    } else {
        return respond(McpAnswer::error(400, knownId, jsonrpc::InvalidRequest,
                                        QStringLiteral("Invalid Request: not a JSON-RPC request, notification or response")));
    }
    const QString method = methodValue.toString();
    const QJsonValue paramsValue = message.value(QStringLiteral("params"));
    if (kind != McpMessageKind::Response && !paramsValue.isUndefined() && !paramsValue.isObject())
        return respond(McpAnswer::error(kind == McpMessageKind::Request ? 200 : 400, knownId, jsonrpc::InvalidParams,
                                        QStringLiteral("Invalid params: \"params\" must be an object")));
    const QJsonObject params = paramsValue.toObject();

    if (modernenvelope::isModernRequest(params, context.protocolVersion))
        return dispatchModern(kind, knownId, method, params, context, respond);
    dispatchLegacy(kind, knownId, method, params, context, respond);
}

void McpDispatcher::dispatchLegacy(McpMessageKind kind, const QJsonValue &id, const QString &method, const QJsonObject &params,
                                   const McpMessageContext &context, const Respond &respond)
{
    if (context.protocolVersion) {
        const QString version = context.protocolVersion->trimmed();
        if (!protocolversions::isLegacy(version))
            return respond(McpAnswer::error(400, id, jsonrpc::TransportError,
                                            QStringLiteral("Bad Request: Unsupported protocol version %1 (supported versions: %2)")
                                                .arg(version.left(40), protocolversions::all().join(QStringLiteral(", ")))));
    }

    const QString sessionId = context.sessionId.trimmed();
    McpSession *session = sessionId.isEmpty() ? nullptr : m_sessions.find(sessionId);
    if (!sessionId.isEmpty() && !session)
        return respond(McpAnswer::error(404, id, jsonrpc::TransportError, QStringLiteral("Session not found")));
    if (kind == McpMessageKind::Request && method == QLatin1String("initialize")) {
        if (session)
            return respond(McpAnswer::error(400, id, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized")));
        return initialize(id, params, respond);
    }
    if (!session)
        return respond(McpAnswer::error(
            400, id, jsonrpc::TransportError,
            QStringLiteral("Bad Request: Mcp-Session-Id header is required (send initialize first, or use protocol version %1 "
                           "with its params._meta)").arg(protocolversions::modern())));
    m_sessions.touch(*session);

    switch (kind) {
    case McpMessageKind::Notification:
        handleNotification(*session, method, params);
        return respond(McpAnswer::accepted());
    case McpMessageKind::Response:
        return respond(McpAnswer::accepted());   // we never send requests to the client; nothing to match
    case McpMessageKind::Request:
        return handleRequest(*session, id, method, params, respond);
    }
}

void McpDispatcher::initialize(const QJsonValue &id, const QJsonObject &params, const Respond &respond)
{
    if (!params.value(QStringLiteral("protocolVersion")).isString())
        return respond(McpAnswer::error(200, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"protocolVersion\" must be a string")));
    McpSession &session = m_sessions.create(negotiateProtocolVersion(params.value(QStringLiteral("protocolVersion")).toString()));
    const QJsonObject client = params.value(QStringLiteral("clientInfo")).toObject();
    session.clientName = client.value(QStringLiteral("name")).toString().left(100);
    session.clientVersion = client.value(QStringLiteral("version")).toString().left(50);
    session.clientCapabilities = params.value(QStringLiteral("capabilities")).toObject();
    qCInfo(lcMcp).noquote() << "MCP session" << session.id.left(8) + QStringLiteral("... initialized by")
                            << (session.clientName.isEmpty() ? QStringLiteral("(unnamed client)") : logSafe(session.clientName))
                            << logSafe(session.clientVersion) << "requesting protocol"
                            << logSafe(params.value(QStringLiteral("protocolVersion")).toString(), 40)
                            << "-> using" << session.protocolVersion;
    McpAnswer answer = McpAnswer::result(id, serverdescription::initializeResult(session.protocolVersion));
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
        return respond(McpAnswer::result(id, QJsonObject{}));
    if (auto answer = answerCatalogRequest(id, method, params, clientOf(session)))
        return respond(*answer);
    if (method == QLatin1String("logging/setLevel")) {
        const QString level = params.value(QStringLiteral("level")).toString();
        if (!logLevels().contains(level))
            return respond(McpAnswer::error(200, id, jsonrpc::InvalidParams,
                                            QStringLiteral("Invalid params: \"level\" must be one of %1").arg(logLevels().join(QStringLiteral(", ")))));
        session.logLevel = level;
        return respond(McpAnswer::result(id, QJsonObject{}));
    }
    if (method == QLatin1String("tools/call"))
        return callTool(session, id, params, respond);
    if (method == QLatin1String("initialize"))
        return respond(McpAnswer::error(400, id, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: Server already initialized")));
    respond(McpAnswer::error(200, id, jsonrpc::MethodNotFound, QStringLiteral("Method not found: %1").arg(method.left(100))));
}

void McpDispatcher::callTool(McpSession &session, const QJsonValue &id, const QJsonObject &params, const Respond &respond)
{
    const QString sessionId = session.id;
    QPointer<McpDispatcher> self(this);
    const McpCaller caller{sessionId, clientOf(session), conversationOf(params)};
    if (!caller.conversation.isEmpty())
        emit toolCalledInConversation(caller.conversation);
    m_calls.call(sessionId, caller, id, params, [self, sessionId, respond](const QByteArray &reply) {
        // A finished call counts as use: the idle clock of its session starts again now (the call
        // is no longer pending, so a lookup could already expire a session idle for longer).
        if (self)
            self->m_sessions.touch(sessionId);
        respond(McpAnswer{200, reply, {}});
    });
}

} // namespace chat2sbx
