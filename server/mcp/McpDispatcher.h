#pragma once

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

// What arrives with one message besides its body: the transport's session and version headers.
struct McpMessageContext {
    QString sessionId;                        // Mcp-Session-Id; empty when absent
    std::optional<QString> protocolVersion;   // MCP-Protocol-Version, when the header was sent
};

// The answer to one message. Streamable HTTP (reference/mcp.md §1) gives every JSON-RPC error an
// HTTP status too, so the status is part of the answer; a transport without statuses ignores it.
struct McpAnswer {
    int status = 200;
    QByteArray json;            // the JSON-RPC response; empty: accepted, nothing to answer (202)
    QString createdSessionId;   // set by a successful initialize (sent as Mcp-Session-Id)

    bool isAccepted() const { return json.isEmpty(); }
};

// The MCP protocol without a socket: validates one JSON-RPC message (no batches), finds or creates
// its session, and answers initialize, ping, tools/list, resources/list, resources/templates/list,
// resources/read (mcp/McpResources), logging/setLevel, tools/call and the
// notifications (initialized, cancelled). `respond` is called exactly once: at once for everything
// but tools/call, whose answer comes when the tool finishes or is cancelled. Notifications and
// client responses are answered with an accepted (empty) answer.
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

    static const QStringList &supportedProtocolVersions();
    static QString negotiateProtocolVersion(const QString &requested);

    McpSessions &sessions() { return m_sessions; }

private:
    void initialize(const QJsonValue &id, const QJsonObject &params, const Respond &respond);
    void handleRequest(McpSession &session, const QJsonValue &id, const QString &method, const QJsonObject &params,
                       const Respond &respond);
    void handleNotification(McpSession &session, const QString &method, const QJsonObject &params);
    void readResource(const QJsonValue &id, const QJsonObject &params, const Respond &respond);
    void callTool(McpSession &session, const QJsonValue &id, const QJsonObject &params, const Respond &respond);

    ToolRegistry &m_tools;
    ToolCallRunner &m_calls;
    McpSessions m_sessions;
    QTimer m_sweep;
};

} // namespace chat2sbx
