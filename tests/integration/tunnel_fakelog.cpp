#include "tunnel_fakelog.h"

#include "TestSupport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace chat2sbx::test {

QList<FakeTunnelEvent> readFakeTunnelLog(const QString &path)
{
    QList<FakeTunnelEvent> events;
    for (const QByteArray &line : readFile(path).split('\n')) {
        const QJsonObject o = QJsonDocument::fromJson(line).object();
        if (o.isEmpty())
            continue;
        FakeTunnelEvent e;
        e.pid = o.value("pid").toInteger();
        e.event = o.value("event").toString();
        e.fields = o;
        e.timeMs = o.value("ts_ms").toDouble();
        for (const QJsonValue &a : o.value("argv").toArray())
            e.argv << a.toString();
        events << e;
    }
    return events;
}

QList<FakeTunnelEvent> fakeTunnelStarts(const QList<FakeTunnelEvent> &events)
{
    QList<FakeTunnelEvent> starts;
    for (const FakeTunnelEvent &e : events)
        if (e.event == QLatin1String("start"))
            starts << e;
    return starts;
}

double fakeTunnelExitTime(const QList<FakeTunnelEvent> &events, qint64 pid)
{
    double t = 0;
    for (const FakeTunnelEvent &e : events)
        if (e.pid == pid && e.event == QLatin1String("exit"))
            t = e.timeMs;
    return t;
}

} // namespace chat2sbx::test
