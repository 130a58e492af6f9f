#include "core/Clock.h"

namespace chat2sbx {

Clock &Clock::system()
{
    static Clock clock;
    return clock;
}

QString isoTime(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, Qt::UTC).toString(Qt::ISODateWithMs);
}

} // namespace chat2sbx
