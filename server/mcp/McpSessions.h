#pragma once

#include <QHash>
#include <QJsonObject>
#include <QString>

#include <functional>

namespace chat2sbx {

class Clock;

// One MCP session (Mcp-Session-Id). Ending a session never touches sandboxes.
struct McpSession {
    QString id;
    QString protocolVersion;
    QString clientName;
    QString clientVersion;
    QJsonObject clientCapabilities;   // as initialize declared them
    QString logLevel = QStringLiteral("info");
    bool initializedNotified = false;
    qint64 createdAt = 0;
    qint64 lastUsedAt = 0;
};

// The live sessions. Ids are 32 hex characters from the system CSPRNG. A session unused for
// `idleSeconds` (by the Clock) is expired when next looked up or swept, unless it is busy (a
// tools/call of it is still pending, as the busy check says).
class McpSessions {
public:
    using BusyCheck = std::function<bool(const QString &sessionId)>;

    McpSessions(const Clock &clock, int idleSeconds) : m_clock(clock), m_idleMs(qint64(idleSeconds) * 1000) {}
    void setBusyCheck(BusyCheck busy) { m_busy = std::move(busy); }

    static constexpr int kMaxSessions = 512;

    McpSession &create(const QString &protocolVersion);
    // nullptr when unknown, ended or expired (an expired session is removed here).
    McpSession *find(const QString &id);
    void touch(McpSession &session);
    // Marks a session used without the expiry check of find() (a call of it just finished).
    void touch(const QString &id);
    bool remove(const QString &id);
    // Removes expired sessions; returns their ids.
    QStringList sweep();
    int count() const { return int(m_sessions.size()); }
    qint64 idleMs() const { return m_idleMs; }

private:
    bool isBusy(const McpSession &s) const { return m_busy && m_busy(s.id); }
    bool isExpired(const McpSession &s) const;
    void evictOldestIdle();

    // Clock::system() or a test's clock; outlives the sessions.
    const Clock &m_clock;
    qint64 m_idleMs;
    BusyCheck m_busy;
    QHash<QString, McpSession> m_sessions;
};

} // namespace chat2sbx
