#pragma once

#include "mcp/McpClient.h"
#include "mcp/McpMessage.h"
#include "mcp/McpSessions.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>
#include <QTimer>

#include <functional>
#include <optional>

namespace chat2sbx {

class Clock;
class ToolCallRunner;
class ToolRegistry;

// The MCP protocol without a socket, in both eras (mcp/ProtocolVersions.h). It validates one
// JSON-RPC message (no batches) and tells the eras apart (modernenvelope::isModernRequest):
// - legacy: finds or creates the message's session and answers initialize, ping, tools/list,
//   resources/*, prompts/*, logging/setLevel, tools/call and the notifications (initialized,
//   cancelled);
// - modern (2026-07-28): no session; each request's _meta and standard headers are checked
//   (McpModernRequests.cpp) and server/discover, tools/*, resources/*, prompts/* are answered.
// `respond` is called exactly once: at once for everything but tools/call, whose answer comes when
// the tool finishes or is cancelled. Notifications and client responses get an accepted answer.
class McpDispatcher : public QObject {
    Q_OBJECT
public:
    using Respond = std::function<void(const McpAnswer &answer)>;
    enum class EndResult { Ended, NotFound };

    McpDispatcher(ToolRegistry &tools, ToolCallRunner &calls, const Clock &clock, int sessionIdleSeconds,
                  QObject *parent = nullptr);
    ~McpDispatcher() override;

    // `body` as it came: invalid JSON is a parse error, anything but one object an invalid request.
    void dispatchBody(const QByteArray &body, const McpMessageContext &context, Respond respond);
    void dispatch(const QJsonValue &message, const McpMessageContext &context, Respond respond);
    // DELETE of a session: its pending calls are cancelled, then it is gone.
    EndResult endSession(const QString &sessionId);

    // What initialize answers for a requested version: that one when it is a legacy version chat2sbx
    // speaks, else the newest legacy one.
    static QString negotiateProtocolVersion(const QString &requested);

    McpSessions &sessions() { return m_sessions; }

signals:
    // A ChatGPT client (clientInfo "openai-mcp") was just given the tool list (tools/list).
    void toolListServedToChatGpt();
    // A tools/call of a ChatGPT conversation (_meta "openai/session") came in.
    void toolCalledInConversation(const QString &conversation);

private:
    void dispatchLegacy(McpMessageKind kind, const QJsonValue &id, const QString &method, const QJsonObject &params,
                        const McpMessageContext &context, const Respond &respond);
    void initialize(const QJsonValue &id, const QJsonObject &params, const Respond &respond);
    void handleRequest(McpSession &session, const QJsonValue &id, const QString &method, const QJsonObject &params,
                       const Respond &respond);
    void handleNotification(McpSession &session, const QString &method, const QJsonObject &params);
    void callTool(McpSession &session, const QJsonValue &id, const QJsonObject &params, const Respond &respond);

    // McpModernRequests.cpp
    void dispatchModern(McpMessageKind kind, const QJsonValue &id, const QString &method, const QJsonObject &params,
                        const McpMessageContext &context, const Respond &respond);
    void handleModernRequest(const McpClient &client, const QJsonValue &id, const QString &method,
                             const QJsonObject &params, const McpMessageContext &context, const Respond &respond);

    // Both eras (McpCatalogRequests.cpp): the answers that do not depend on a session. Empty answer:
    // not one of these methods.
    std::optional<McpAnswer> answerCatalogRequest(const QJsonValue &id, const QString &method, const QJsonObject &params,
                                                  const McpClient &client);

    // Outlive this: Controller (runtime/Controller.h) owns this after its Services and the clock.
    ToolRegistry &m_tools;
    ToolCallRunner &m_calls;
    McpSessions m_sessions;
    QTimer m_sweep;
    // tools/list for modern clients, made from the registry's cached list (m_modernToolListSource).
    QByteArray m_modernToolListSource;
    QByteArray m_modernToolList;
};

} // namespace chat2sbx
