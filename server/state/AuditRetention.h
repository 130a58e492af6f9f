#pragma once

#include <QObject>
#include <QTimer>

namespace chat2sbx {

class Clock;
class Database;

// Keeps the activity log bounded: at start and then hourly, deletes audit rows older than the
// retention and all but the newest `maxRows` (Config auditRetentionDays / auditMaxRows). The same
// pass deletes the bash sessions of destroyed sandboxes and those that ended before the retention.
class AuditRetention : public QObject {
    Q_OBJECT
public:
    AuditRetention(Database &db, const Clock &clock, int retentionDays, int maxRows, QObject *parent = nullptr);

    void start();
    void stop();
    // One pass now; returns the rows deleted (-1 on a database error, which is logged).
    int pruneNow();

private:
    // Outlive this: Controller (runtime/Controller.h) owns this after its Services and the clock.
    Database &m_db;
    const Clock &m_clock;
    qint64 m_maxAgeMs;
    int m_maxRows;
    QTimer m_timer;
};

} // namespace chat2sbx
