#pragma once

#include "core/JsonRpc.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

#include <functional>
#include <optional>

namespace chat2sbx {

// A JSON-RPC message's kind (a request has an id and a method).
enum class McpMessageKind { Request, Notification, Response };

// What arrives with one message besides its body: the transport's headers that MCP defines.
struct McpMessageContext {
    QString sessionId = {};                        // Mcp-Session-Id; empty when absent
    std::optional<QString> protocolVersion = {};   // MCP-Protocol-Version, when the header was sent
    std::optional<QByteArray> method = {};         // Mcp-Method (2026-07-28), when sent
    std::optional<QByteArray> name = {};           // Mcp-Name (2026-07-28), when sent
    // Called once with a modern tools/call's cancel function while the call runs, so that the
    // transport can cancel it when the client goes away (closing the request is the 2026-07-28
    // binding's cancellation). Unset: the transport cannot tell.
    std::function<void(std::function<void()> cancel)> onCancellable = {};
};

// The answer to one message. Streamable HTTP (reference/mcp.md §1) gives every JSON-RPC error an
// HTTP status too, so the status is part of the answer; a transport without statuses ignores it.
struct McpAnswer {
    int status = 200;
    QByteArray json;            // the JSON-RPC response; empty: accepted, nothing to answer (202)
    QString createdSessionId;   // set by a successful initialize (sent as Mcp-Session-Id)

    bool isAccepted() const { return json.isEmpty(); }

    static McpAnswer accepted() { return McpAnswer{202, {}, {}}; }
    static McpAnswer result(const QJsonValue &id, const QJsonObject &result)
    {
        return McpAnswer{200, jsonrpc::serialize(jsonrpc::result(id, result)), {}};
    }
    static McpAnswer error(int status, const QJsonValue &id, int code, const QString &text, const QJsonValue &data = {})
    {
        return McpAnswer{status, jsonrpc::serialize(jsonrpc::error(id, code, text, data)), {}};
    }
};

} // namespace chat2sbx
