#include "tunnel/RestartBackoff.h"

namespace chat2sbx {

qint64 RestartBackoff::delayForAttempt(int n) const
{
    qint64 delay = m_baseMs;
    for (int i = 1; i < n && delay < m_maxMs; ++i)
        delay *= 2;
    return qMin(delay, m_maxMs);
}

qint64 RestartBackoff::nextDelayMs(qint64 readyForMs)
{
    if (readyForMs >= m_stableMs)
        m_failures = 0;
    ++m_failures;
    return delayForAttempt(m_failures);
}

} // namespace chat2sbx
