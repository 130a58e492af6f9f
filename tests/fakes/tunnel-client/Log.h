// stderr logging for the fake tunnel-client: every line starts with "fake tunnel-client: ".
#pragma once

#include <QString>

namespace faketunnel {

enum class LogLevel { Debug, Info, Warn, Error };

// Parses a level the way Go's slog does (debug, info, warn, error; case-insensitive).
bool parseLogLevel(const QString &text, LogLevel *level);
void setLogLevel(LogLevel level);

void logDebug(const QString &message);
void logInfo(const QString &message);
void logWarn(const QString &message);
void logError(const QString &message);
// Printed regardless of the configured level (configuration errors, security warnings).
void logAlways(const QString &message);

} // namespace faketunnel
