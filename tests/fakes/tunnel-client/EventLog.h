// FAKE_TUNNEL_LOG: one JSON object per line, appended, so tests can see starts, readiness and
// exits of every fake process (pid, argv). Disabled when constructed with an empty path.
#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>

namespace faketunnel {

class EventLog
{
public:
    explicit EventLog(const QString &path) : m_path(path) {}
    bool enabled() const { return !m_path.isEmpty(); }
    // Adds "pid", "event" and "ts_ms" to fields and appends the line with a single write.
    void write(const QString &event, QJsonObject fields = QJsonObject()) const;

private:
    QString m_path;
};

} // namespace faketunnel
