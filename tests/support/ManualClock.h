#pragma once

#include "core/Clock.h"

namespace chat2sbx {

// A clock that stands still until a test moves it.
class ManualClock : public Clock {
public:
    explicit ManualClock(qint64 start = QDateTime::currentMSecsSinceEpoch()) : m_now(start) {}
    qint64 nowMs() const override { return m_now; }
    void advance(qint64 ms) { m_now += ms; }
    void set(qint64 ms) { m_now = ms; }

private:
    qint64 m_now;
};

} // namespace chat2sbx
