#pragma once

#include <QtGlobal>

namespace chat2sbx {

// Exponential restart delay for a supervised child: base, 2*base, 4*base ... capped at max.
// A child that stayed ready for at least `stableMs` before exiting starts again from `base`.
class RestartBackoff {
public:
    explicit RestartBackoff(qint64 baseMs = 1000, qint64 maxMs = 60000, qint64 stableMs = 60000)
        : m_baseMs(qMax<qint64>(1, baseMs)), m_maxMs(qMax(m_baseMs, maxMs)), m_stableMs(stableMs) {}

    // Call when the child exited; `readyForMs` is how long it had been ready (0 if never).
    // Returns the delay before the next start.
    qint64 nextDelayMs(qint64 readyForMs);
    // The delay for the n-th consecutive failure (n >= 1), without changing state.
    qint64 delayForAttempt(int n) const;
    int consecutiveFailures() const { return m_failures; }
    void reset() { m_failures = 0; }

    qint64 baseMs() const { return m_baseMs; }
    qint64 maxMs() const { return m_maxMs; }
    qint64 stableMs() const { return m_stableMs; }

private:
    qint64 m_baseMs;
    qint64 m_maxMs;
    qint64 m_stableMs;
    int m_failures = 0;
};

} // namespace chat2sbx
