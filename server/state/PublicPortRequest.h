#pragma once

#include <QString>

namespace chat2sbx {

// pending → approved (the user) → published (the cloud gave its URL) | failed (it did not), or
// pending → rejected; a published port → unpublished (sandbox_unexpose, the tray, destroy).
enum class PublicPortState { Pending, Approved, Rejected, Published, Failed, Unpublished };

QString publicPortStateName(PublicPortState state);
bool parsePublicPortState(const QString &text, PublicPortState &out);

// sandbox_expose on a cloud sandbox: the port would be a public HTTPS URL anyone can open, so it
// waits for the local user's approval (tray, notification, `chat2sbx approval approve pub_…`);
// the agent's next sandbox_expose of the same port learns the outcome.
struct PublicPortRequest {
    QString id;                 // pub_ + random
    QString sandboxId;
    int port = 0;               // inside the sandbox
    QString clientName;         // the MCP client that asked, may be empty
    PublicPortState state = PublicPortState::Pending;
    QString url;                // published: the cloud's public URL
    QString error;              // failed: what the cloud said
    qint64 requestedAt = 0;
    qint64 decidedAt = 0;       // 0 while pending
    QString decidedBy;          // "cli", "tray", "notification"; empty while pending
};

} // namespace chat2sbx
