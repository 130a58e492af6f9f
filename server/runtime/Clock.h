#pragma once

#include <QDateTime>

namespace chat2sbx {

// Wall-clock time in milliseconds since the epoch. Services take a Clock so tests can move time.
class Clock {
public:
    virtual ~Clock() = default;
    virtual qint64 nowMs() const { return QDateTime::currentMSecsSinceEpoch(); }
    static Clock &system();
};

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

// ISO-8601 UTC text for a millisecond timestamp, as tool results show times.
QString isoTime(qint64 ms);

} // namespace chat2sbx
