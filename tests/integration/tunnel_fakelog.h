#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace chat2sbx::test {

// One JSON line of FAKE_TUNNEL_LOG (see tests/fakes/tunnel-client/README.md).
struct FakeTunnelEvent {
    qint64 pid = 0;
    QString event;
    double timeMs = 0;        // ts_ms: wall clock, milliseconds
    QJsonObject fields;       // the whole line
    QStringList argv;
};

QList<FakeTunnelEvent> readFakeTunnelLog(const QString &path);
// The "start" event of each client process, in order.
QList<FakeTunnelEvent> fakeTunnelStarts(const QList<FakeTunnelEvent> &events);
// When the client with `pid` exited (its last event), 0 if unknown.
double fakeTunnelExitTime(const QList<FakeTunnelEvent> &events, qint64 pid);

} // namespace chat2sbx::test
