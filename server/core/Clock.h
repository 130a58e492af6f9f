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

// ISO-8601 UTC text for a millisecond timestamp, as tool results show times.
QString isoTime(qint64 ms);

} // namespace chat2sbx
