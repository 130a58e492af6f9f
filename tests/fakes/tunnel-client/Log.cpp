#include "Log.h"

#include <QDateTime>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cstdio>

namespace faketunnel {
namespace {

LogLevel g_level = LogLevel::Info;
LogFormat g_format = LogFormat::Unset;
QFile *g_file = nullptr;   // lives for the process

const char *levelName(LogLevel level)
{
    switch (level) {
    case LogLevel::Debug: return "DEBUG";
    case LogLevel::Info: return "INFO";
    case LogLevel::Warn: return "WARN";
    case LogLevel::Error: return "ERROR";
    }
    return "INFO";
}

// slog's text handler quotes a value that is empty or has spaces, quotes, '=' or control characters.
QString textValue(const QVariant &value)
{
    const QString s = value.toString();
    static const QRegularExpression needsQuote(QStringLiteral("[\\s\"=\\\\]|[\\x00-\\x1f]"));
    if (!s.isEmpty() && !needsQuote.match(s).hasMatch())
        return s;
    QString out = QStringLiteral("\"");
    for (const QChar c : s) {
        if (c == QLatin1Char('"') || c == QLatin1Char('\\'))
            out += QLatin1Char('\\');
        out += c;
    }
    return out + QLatin1Char('"');
}

void writeRaw(const QByteArray &line, bool toStderr)
{
    if (g_file) {
        g_file->write(line);
        g_file->flush();
        return;
    }
    FILE *stream = toStderr ? stderr : stdout;
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stream);
    std::fflush(stream);
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

bool configureLog(LogLevel level, LogFormat format, const QString &file, QString *error)
{
    g_level = level;
    g_format = format;
    if (file.isEmpty())
        return true;
    auto *f = new QFile(file);
    if (!f->open(QIODevice::WriteOnly | QIODevice::Append)) {
        *error = QStringLiteral("open log file: open %1: %2").arg(file, f->errorString());
        delete f;
        return false;
    }
    f->setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    g_file = f;
    return true;
}

void logAt(LogLevel level, const QString &message, const LogFields &fields)
{
    if (static_cast<int>(level) < static_cast<int>(g_level))
        return;
    const QDateTime now = QDateTime::currentDateTime();
    QByteArray line;
    if (g_format == LogFormat::Json) {
        QJsonObject o{{QStringLiteral("time"), now.toString(Qt::ISODateWithMs)},
                      {QStringLiteral("level"), QLatin1String(levelName(level))},
                      {QStringLiteral("msg"), message}};
        for (const auto &f : fields)
            o.insert(f.first, QJsonValue::fromVariant(f.second));
        line = QJsonDocument(o).toJson(QJsonDocument::Compact);
    } else {
        QString text = g_format == LogFormat::StructText
                           ? QStringLiteral("time=%1 level=%2 msg=%3").arg(now.toString(Qt::ISODateWithMs),
                                                                          QLatin1String(levelName(level)), textValue(message))
                           : QStringLiteral("%1 %2 %3").arg(now.toString(QStringLiteral("yyyy/MM/dd HH:mm:ss")),
                                                            QLatin1String(levelName(level)), message);
        for (const auto &f : fields)
            text += QStringLiteral(" %1=%2").arg(f.first, textValue(f.second));
        line = text.toUtf8();
    }
    writeRaw(line + '\n', g_format == LogFormat::Unset);
}

void logAlways(const QString &message)
{
    const QByteArray line = message.toUtf8() + '\n';
    std::fwrite(line.constData(), 1, static_cast<size_t>(line.size()), stderr);
    std::fflush(stderr);
}

} // namespace faketunnel
