// McpDispatcher's modern era (MCP 2026-07-28, basic/versioning.mdx and the Streamable HTTP binding):
// no handshake and no session; every request is checked on its own, in this order:
//  1. MCP-Protocol-Version header vs _meta's version        -> 400, -32020 HeaderMismatch
//  2. the requested version is one chat2sbx serves          -> 400, -32022 UnsupportedProtocolVersion
//  3. _meta carries the required envelope fields            -> 400, -32602 Invalid params
//  4. Mcp-Method / Mcp-Name agree with the body (SEP-2243)  -> 400, -32020 HeaderMismatch
//  5. the method exists in this revision                    -> 404, -32601 Method not found
// ChatGPT's opening probe is a server/discover: it is answered 200 whenever its _meta names a version
// chat2sbx serves, with or without a version header (reference/mcp.md §5).
#include "mcp/McpDispatcher.h"

#include "core/JsonRpc.h"
#include "core/LogText.h"
#include "mcp/ModernEnvelope.h"
#include "mcp/ProtocolVersions.h"
#include "mcp/ServerDescription.h"
#include "mcp/StandardHeaders.h"
#include "mcp/ToolCallRunner.h"

#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>

#include <memory>

namespace chat2sbx {

Q_DECLARE_LOGGING_CATEGORY(lcMcp)

namespace {

// The header and _meta versions disagree. server/discover tolerates a legacy header beside a served
// _meta version: it only lists what chat2sbx speaks, and a client probing the era may still carry
// the header of its last legacy session.
bool versionsDisagree(const QString &method, const std::optional<QString> &header, const std::optional<QString> &meta)
{
    if (!header || !meta || header->trimmed() == *meta)
        return false;
    const bool lenientProbe = method == QLatin1String("server/discover") && protocolversions::isModern(*meta)
                              && protocolversions::isLegacy(header->trimmed());
    return !lenientProbe;
}

} // namespace

void McpDispatcher::dispatchModern(McpMessageKind kind, const QJsonValue &id, const QString &method, const QJsonObject &params,
                                   const McpMessageContext &context, const Respond &respond)
{
    // This revision defines no client notification over HTTP (cancelling is closing the request) and
    // we never send requests to answer: accept and ignore both.
    if (kind != McpMessageKind::Request)
        return respond(McpAnswer::accepted());

    const std::optional<QString> metaVersion = modernenvelope::metaVersion(params);
    if (versionsDisagree(method, context.protocolVersion, metaVersion))
        return respond(McpAnswer::error(
            400, id, jsonrpc::HeaderMismatch,
            QStringLiteral("Header mismatch: MCP-Protocol-Version header value '%1' does not match body value '%2' "
                           "(params._meta[\"io.modelcontextprotocol/protocolVersion\"])")
                .arg(logSafe(context.protocolVersion->trimmed(), 40), logSafe(*metaVersion, 40))));

    const QString requested = metaVersion ? *metaVersion : context.protocolVersion.value_or(QString()).trimmed();
    if (!requested.isEmpty() && !protocolversions::isModern(requested))
        return respond(McpAnswer::error(
            400, id, jsonrpc::UnsupportedProtocolVersion,
            QStringLiteral("Unsupported protocol version %1: this server speaks %2 (without a session) and %3 (after initialize)")
                .arg(logSafe(requested, 40), protocolversions::modern(), protocolversions::legacy().join(QStringLiteral(", "))),
            QJsonObject{{QStringLiteral("supported"), QJsonArray::fromStringList(protocolversions::all())},
                        {QStringLiteral("requested"), requested.left(100)}}));

    QString problem;
    const std::optional<McpClient> client = modernenvelope::parse(params, problem);
    if (!client)
        return respond(McpAnswer::error(400, id, jsonrpc::InvalidParams, QStringLiteral("Invalid params: ") + problem));

    if (const auto mismatch = standardheaders::mismatch(method, params, {context.method, context.name}))
        return respond(McpAnswer::error(400, id, jsonrpc::HeaderMismatch, *mismatch));

    handleModernRequest(*client, id, method, params, context, respond);
}

void McpDispatcher::handleModernRequest(const McpClient &client, const QJsonValue &id, const QString &method,
                                        const QJsonObject &params, const McpMessageContext &context, const Respond &respond)
{
    if (method == QLatin1String("server/discover")) {
        QJsonObject result = serverdescription::discoverResult();
        serverdescription::stampModern(result);
        qCDebug(lcMcp).noquote() << "server/discover from" << logSafe(client.name.isEmpty() ? QStringLiteral("(unnamed client)") : client.name);
        return respond(McpAnswer::result(id, result));
    }
    if (auto answer = answerCatalogRequest(id, method, params, client))
        return respond(*answer);
    if (method != QLatin1String("tools/call"))
        return respond(McpAnswer::error(
            404, id, jsonrpc::MethodNotFound,
            QStringLiteral("Method not found: %1 (protocol version %2 has no such method)").arg(logSafe(method, 100), protocolversions::modern())));

    const QString scope = m_calls.newModernScope();
    const McpCaller caller{QString(), client, conversationOf(params)};
    if (!caller.conversation.isEmpty())
        emit toolCalledInConversation(caller.conversation);
    auto answered = std::make_shared<bool>(false);
    m_calls.call(scope, caller, id, params, [respond, answered](const QByteArray &reply) {
        *answered = true;
        respond(McpAnswer{200, reply, {}});
    });
    // Only a call still running needs to hear that its client left (most tools answer at once, and
    // watching the connection costs three signal connections per request).
    if (*answered || !context.onCancellable)
        return;
    QPointer<McpDispatcher> self(this);
    ToolCallRunner *calls = &m_calls;
    context.onCancellable([self, calls, scope, id] {
        if (self)
            calls->cancel(scope, id, QStringLiteral("the client closed the request"));
    });
}

} // namespace chat2sbx
