#include "tunnel/TunnelClientOutput.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

const QString kPollFailed = QStringLiteral("poll failed; backing off");
const QString kPollRecovered = QStringLiteral("poller recovered; polling operational");

} // namespace

TunnelClientLine TunnelClientLine::parse(const QString &line)
{
    TunnelClientLine out;
    const QString trimmed = line.trimmed();
    if (trimmed.startsWith(QLatin1Char('{'))) {
        const QJsonObject o = QJsonDocument::fromJson(trimmed.toUtf8()).object();
        if (!o.isEmpty()) {
            const QString level = o.value(QStringLiteral("level")).toString().toUpper();
            const QString msg = o.value(QStringLiteral("msg")).toString();
            const QString error = o.value(QStringLiteral("error")).toString();
            out.statusCode = o.value(QStringLiteral("status_code")).toInt();
            out.text = level + QLatin1Char(' ') + msg;
            if (!error.isEmpty())
                out.text += QStringLiteral(": ") + error;
            if (msg == kPollFailed) {
                out.kind = Kind::PollFailed;
                if (out.statusCode)
                    out.text += QStringLiteral(" (HTTP %1)").arg(out.statusCode);
            } else if (msg == kPollRecovered) {
                out.kind = Kind::PollRecovered;
            } else if (level == QLatin1String("ERROR")) {
                out.kind = Kind::Error;
            }
            return out;
        }
    }
    // Plain text: Go's default logger ("2006/01/02 15:04:05 WARN msg k=v") or an error from main.go.
    out.text = trimmed;
    if (trimmed.contains(kPollFailed)) {
        out.kind = Kind::PollFailed;
        static const QRegularExpression status(QStringLiteral("\\bstatus_code=(\\d{3})\\b"));
        const QRegularExpressionMatch m = status.match(trimmed);
        out.statusCode = m.hasMatch() ? m.captured(1).toInt() : 0;
    } else if (trimmed.contains(kPollRecovered)) {
        out.kind = Kind::PollRecovered;
    } else {
        static const QRegularExpression goLevel(QStringLiteral("^\\d{4}/\\d\\d/\\d\\d \\d\\d:\\d\\d:\\d\\d (DEBUG|INFO|WARN) "));
        if (!goLevel.match(trimmed).hasMatch())
            out.kind = Kind::Error;   // ERROR lines and anything unstructured (main.go prints errors plainly)
    }
    return out;
}

std::optional<double> prometheusSample(const QByteArray &text, const QByteArray &name)
{
    for (const QByteArray &raw : text.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (!line.startsWith(name) || line.size() <= name.size())
            continue;
        const char next = line.at(name.size());
        qsizetype valueStart;
        if (next == '{') {
            const qsizetype close = line.indexOf('}', name.size());
            if (close < 0)
                continue;
            valueStart = close + 1;
        } else if (next == ' ' || next == '\t') {
            valueStart = name.size();
        } else {
            continue;   // a longer metric name with the same prefix
        }
        const QList<QByteArray> fields = line.mid(valueStart).simplified().split(' ');
        bool ok = false;
        const double value = fields.value(0).toDouble(&ok);
        if (ok)
            return value;
    }
    return std::nullopt;
}

} // namespace chat2sbx
