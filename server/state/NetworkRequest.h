#pragma once

#include <QString>
#include <QStringList>

namespace chat2sbx {

enum class NetworkRequestState { Pending, Allowed, Denied };

QString networkRequestStateName(NetworkRequestState state);
bool parseNetworkRequestState(const QString &text, NetworkRequestState &out);

// An agent's request for network access from one sandbox to a few hosts (sbx host patterns).
// Created pending by the network_request tool; decided once by the local user (CLI or tray).
struct NetworkRequest {
    QString id;                  // net_ + random
    QString sandboxId;
    QStringList hosts;           // 1..10 sbx host patterns
    QString reason;              // the agent's words (<= 500 characters), may be empty
    QString clientName;          // clientInfo.name of the asking MCP client, may be empty
    NetworkRequestState state = NetworkRequestState::Pending;
    bool always = false;         // allowed for every sandbox (a global sbx rule)
    qint64 requestedAt = 0;
    qint64 decidedAt = 0;        // 0 while pending
    QString decidedBy;           // "cli", "tray"; empty while pending

    bool isPending() const { return state == NetworkRequestState::Pending; }
};

// An sbx network allow rule chat2sbx added: removed again when its sandbox is destroyed (per-sandbox
// rules) or when the user removes it (global ones).
struct NetworkRule {
    qint64 id = 0;
    QString sandboxId;           // empty: global ("allow always")
    QString runtimeName;         // the sandbox's runtime name at the time (empty for global)
    QString host;
    QString requestId;
    qint64 addedAt = 0;
};

} // namespace chat2sbx
