#pragma once

#include <QHash>
#include <QString>

namespace chat2sbx {

class Clock;

// One MCP session (Mcp-Session-Id). Ending a session never touches sandboxes.
struct McpSession {
    QString id;
    QString protocolVersion;
    QString clientName;
    QString clientVersion;
    QString logLevel = QStringLiteral("info");
    bool initializedNotified = false;
    qint64 createdAt = 0;
    qint64 lastUsedAt = 0;
    int pendingCalls = 0;       // tools/call requests not answered yet; such a session does not expire
};

// The live sessions. Ids are 32 hex characters from the system CSPRNG. A session unused for
// `idleSeconds` (by the Clock) is expired when next looked up or swept.
class McpSessions {
public:
    McpSessions(const Clock &clock, int idleSeconds) : m_clock(clock), m_idleMs(qint64(idleSeconds) * 1000) {}

    static constexpr int kMaxSessions = 512;

    McpSession &create(const QString &protocolVersion);
    // nullptr when unknown, ended or expired (an expired session is removed here).
    McpSession *find(const QString &id);
    void touch(McpSession &session);
    bool remove(const QString &id);
    // Removes expired sessions; returns their ids.
    QStringList sweep();
    int count() const { return int(m_sessions.size()); }
    qint64 idleMs() const { return m_idleMs; }

private:
    bool isExpired(const McpSession &s) const;
    void evictOldestIdle();

    const Clock &m_clock;
    qint64 m_idleMs;
    QHash<QString, McpSession> m_sessions;
};

} // namespace chat2sbx
