#include "mcp/McpSessions.h"

#include "core/Clock.h"
#include "core/Ids.h"

namespace chat2sbx {

McpSession &McpSessions::create(const QString &protocolVersion)
{
    sweep();
    if (m_sessions.size() >= kMaxSessions)
        evictOldestIdle();
    McpSession s;
    do
        s.id = randomHex(16);
    while (m_sessions.contains(s.id));
    s.protocolVersion = protocolVersion;
    s.createdAt = s.lastUsedAt = m_clock.nowMs();
    return m_sessions.insert(s.id, s).value();
}

bool McpSessions::isExpired(const McpSession &s) const
{
    return m_clock.nowMs() - s.lastUsedAt >= m_idleMs && !isBusy(s);
}

McpSession *McpSessions::find(const QString &id)
{
    auto it = m_sessions.find(id);
    if (it == m_sessions.end())
        return nullptr;
    if (isExpired(it.value())) {
        m_sessions.erase(it);
        return nullptr;
    }
    return &it.value();
}

void McpSessions::touch(McpSession &session)
{
    session.lastUsedAt = m_clock.nowMs();
}

void McpSessions::touch(const QString &id)
{
    auto it = m_sessions.find(id);
    if (it != m_sessions.end())
        it->lastUsedAt = m_clock.nowMs();
}

bool McpSessions::remove(const QString &id)
{
    return m_sessions.remove(id) > 0;
}

QStringList McpSessions::sweep()
{
    QStringList gone;
    for (auto it = m_sessions.begin(); it != m_sessions.end();) {
        if (isExpired(it.value())) {
            gone << it.key();
            it = m_sessions.erase(it);
        } else {
            ++it;
        }
    }
    return gone;
}

void McpSessions::evictOldestIdle()
{
    auto oldest = m_sessions.end();
    for (auto it = m_sessions.begin(); it != m_sessions.end(); ++it)
        if (!isBusy(*it) && (oldest == m_sessions.end() || it->lastUsedAt < oldest->lastUsedAt))
            oldest = it;
    if (oldest != m_sessions.end())
        m_sessions.erase(oldest);
}

} // namespace chat2sbx
