#include "EventLog.h"

#include "Log.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonDocument>

namespace faketunnel {

void EventLog::write(const QString &event, QJsonObject fields) const
{
    if (!enabled())
        return;
    fields.insert(QStringLiteral("pid"), QCoreApplication::applicationPid());
    fields.insert(QStringLiteral("event"), event);
    fields.insert(QStringLiteral("ts_ms"), QDateTime::currentMSecsSinceEpoch());
    const QByteArray line = QJsonDocument(fields).toJson(QJsonDocument::Compact) + '\n';
    QFile file(m_path);
    // O_APPEND plus one unbuffered write keeps lines from concurrent fakes intact.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Append | QIODevice::Unbuffered)) {
        logWarn(QStringLiteral("cannot open FAKE_TUNNEL_LOG %1: %2").arg(m_path, file.errorString()));
        return;
    }
    if (file.write(line) != line.size())
        logWarn(QStringLiteral("short write to FAKE_TUNNEL_LOG %1").arg(m_path));
}

} // namespace faketunnel
