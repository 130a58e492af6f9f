#pragma once

#include <QString>

namespace chat2sbx {

// One finished tools/call. outcome: ok | error | invalid | cancelled.
struct AuditEntry {
    qint64 id = 0;
    qint64 at = 0;               // ms since epoch, when the call started
    QString client;              // the MCP client's name from initialize (may be empty)
    QString session;             // short MCP session id (empty for a modern, sessionless request)
    QString conversation;        // the ChatGPT conversation id (_meta "openai/session"), when sent
    QString tool;
    QString sandboxId;           // from the arguments, when present
    QString summary;             // one line about the arguments (AuditSummary); never content or secrets
    qint64 durationMs = 0;
    QString outcome;
    QString detail;              // the error text; never a token or host data path

    // The conversation id shortened for display: its last path segment ("v1/3f9a..." -> "3f9a..."),
    // at most 8 characters; empty when none.
    QString shortConversation() const { return shortConversationId(conversation); }
    static QString shortConversationId(const QString &conversation)
    {
        const QString tail = conversation.mid(conversation.lastIndexOf(QLatin1Char('/')) + 1);
        return (tail.isEmpty() ? conversation : tail).left(8);
    }
};

} // namespace chat2sbx
