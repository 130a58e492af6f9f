// Logging like the real client's slog setup (pkg/log/logger.go): with no --log.format the Go
// default logger writes "2006/01/02 15:04:05 LEVEL msg key=value" to stderr; struct-text
// ("time=... level=... msg=...") and json go to stdout, or to --log.file / LOG_FILE (appended).
// Configuration errors before logging is set up go to stderr as one plain line (cmd/client/main.go).
#pragma once

#include <QList>
#include <QPair>
#include <QString>
#include <QVariant>

namespace faketunnel {

enum class LogLevel { Debug, Info, Warn, Error };
enum class LogFormat { Unset, StructText, Json };
using LogFields = QList<QPair<QString, QVariant>>;

// Parses a level the way Go's slog does (debug, info, warn, error; case-insensitive).
bool parseLogLevel(const QString &text, LogLevel *level);
// Sets level, format and destination; an empty file means stdout/stderr. False if the file cannot be opened.
bool configureLog(LogLevel level, LogFormat format, const QString &file, QString *error);

void logAt(LogLevel level, const QString &message, const LogFields &fields = {});
inline void logDebug(const QString &m, const LogFields &f = {}) { logAt(LogLevel::Debug, m, f); }
inline void logInfo(const QString &m, const LogFields &f = {}) { logAt(LogLevel::Info, m, f); }
inline void logWarn(const QString &m, const LogFields &f = {}) { logAt(LogLevel::Warn, m, f); }
inline void logError(const QString &m, const LogFields &f = {}) { logAt(LogLevel::Error, m, f); }
// One plain line on stderr, whatever the configuration (what main.go prints for a returned error).
void logAlways(const QString &message);

} // namespace faketunnel
