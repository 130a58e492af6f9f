#pragma once

#include <QtGlobal>

namespace chat2sbx {

// Lets at most `burst` messages of one kind through per window; the rest are counted, and the first
// message of the next window says how many were left out. For warnings whose cause is outside our
// control (a VM writing garbage, a client sending junk), so a flood cannot flood the log too.
class LogRateLimiter {
public:
    LogRateLimiter(int burst, qint64 windowMs) : m_burst(burst), m_windowMs(windowMs) {}

    // True when this message may be logged; `suppressedBefore` is how many were dropped since the
    // last one that was (say so in the message when it is not 0).
    bool allow(qint64 nowMs, qint64 &suppressedBefore)
    {
        if (m_windowStart < 0 || nowMs - m_windowStart >= m_windowMs) {
            m_windowStart = nowMs;
            m_inWindow = 0;
        }
        if (m_inWindow >= m_burst) {
            ++m_suppressed;
            return false;
        }
        ++m_inWindow;
        suppressedBefore = m_suppressed;
        m_suppressed = 0;
        return true;
    }

private:
    int m_burst;
    qint64 m_windowMs;
    qint64 m_windowStart = -1;
    int m_inWindow = 0;
    qint64 m_suppressed = 0;
};

} // namespace chat2sbx
