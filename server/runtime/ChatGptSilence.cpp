#include "runtime/ChatGptSilence.h"

#include "core/Clock.h"

namespace chat2sbx {

ChatGptSilence::ChatGptSilence(const Clock &clock, QObject *parent) : QObject(parent), m_clock(clock) {}

void ChatGptSilence::noteCall(const QString &conversation)
{
    const qint64 now = m_clock.nowMs();
    if (conversation != m_conversation || now - m_lastMs >= kForgetAfterMs) {
        m_conversation = conversation;
        m_firstMs = now;
    }
    m_lastMs = now;
}

QString ChatGptSilence::notice(bool tunnelConnected) const
{
    if (!tunnelConnected || m_lastMs == 0)
        return {};
    const qint64 silent = m_clock.nowMs() - m_lastMs;
    const qint64 active = m_lastMs - m_firstMs;
    if (active < kActiveForMs || silent < kSilentForMs || silent >= kForgetAfterMs)
        return {};
    return QStringLiteral("ChatGPT has sent nothing for %1 min, after a conversation that called chat2sbx for %2 min, while the "
                          "tunnel is healthy. ChatGPT is known to stop sending through the Secure MCP Tunnel after about 40-60 "
                          "minutes of one conversation: if it seems to wait for chat2sbx, start a new chat (nothing needs "
                          "restarting here).")
        .arg(silent / 60000)
        .arg(active / 60000);
}

} // namespace chat2sbx
