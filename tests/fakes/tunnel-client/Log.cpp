#include "Log.h"

#include <cstdio>

namespace faketunnel {
namespace {

LogLevel g_level = LogLevel::Info;

void writeLine(const QString &message)
{
    const QByteArray line = QByteArrayLiteral("fake tunnel-client: ") + message.toUtf8() + '\n';
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stderr);
    std::fflush(stderr);
}

void emitAt(LogLevel level, const QString &message)
{
    if (static_cast<int>(level) >= static_cast<int>(g_level))
        writeLine(message);
}

} // namespace

bool parseLogLevel(const QString &text, LogLevel *level)
{
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("debug"))
        *level = LogLevel::Debug;
    else if (t == QLatin1String("info"))
        *level = LogLevel::Info;
    else if (t == QLatin1String("warn"))
        *level = LogLevel::Warn;
    else if (t == QLatin1String("error"))
        *level = LogLevel::Error;
    else
        return false;
    return true;
}

void setLogLevel(LogLevel level) { g_level = level; }
void logDebug(const QString &message) { emitAt(LogLevel::Debug, message); }
void logInfo(const QString &message) { emitAt(LogLevel::Info, message); }
void logWarn(const QString &message) { emitAt(LogLevel::Warn, message); }
void logError(const QString &message) { emitAt(LogLevel::Error, message); }
void logAlways(const QString &message) { writeLine(message); }

} // namespace faketunnel
