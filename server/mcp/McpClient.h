#pragma once

#include "mcp/ResultText.h"

#include <QJsonObject>
#include <QString>

namespace chat2sbx {

// Who sent one MCP request: from `initialize` for a legacy session, from the request's own
// params._meta for a modern one (each modern request says it again; nothing is remembered).
struct McpClient {
    QString name;                   // clientInfo.name (may be empty), at most 100 characters
    QString version;                // clientInfo.version, at most 50 characters
    QString protocolVersion;
    QJsonObject capabilities;       // ClientCapabilities as declared
    bool modern = false;            // served statelessly under the 2026-07-28 revision

    // The MCP Apps extension with the HTML profile chat2sbx's tool card uses.
    bool declaresUi() const;
    // The text block the client's model needs (ResultText.h). ChatGPT gets the compact form, which
    // leaves the full result to structuredContent and the card: a modern ChatGPT request only when it
    // declared the ui extension (nothing undeclared is relied on); a legacy ChatGPT session by name, as
    // its initialize never declared extensions.
    ResultTextForm textForm() const;
};

// What one tools/call carries besides its arguments: the client, the legacy session it belongs to
// (empty for a modern request) and the ChatGPT conversation (params._meta["openai/session"], an
// anonymised id; empty when absent).
struct McpCaller {
    QString sessionId;
    McpClient client;
    QString conversation;
};

// At most 128 printable characters of _meta["openai/session"] of `params`; empty when absent or junk.
QString conversationOf(const QJsonObject &params);

} // namespace chat2sbx
