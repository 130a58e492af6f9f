// The system's time read directly: a test's clock cannot move it.
#include <QDateTime>

bool expired(qint64 deadlineMs)
{
    return QDateTime::currentMSecsSinceEpoch() > deadlineMs;
}
