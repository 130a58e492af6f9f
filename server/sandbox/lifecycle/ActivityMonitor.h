#pragma once

#include "state/AuditLogRepository.h"

#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

#include <functional>

namespace chat2sbx {

class BashSessions;
class ChannelPool;
class Database;
class SandboxService;

// A bash command running in a sandbox now, with the last lines of its output.
struct RunningCommand {
    QString sandboxId;
    QString sessionId;
    QString command;
    qint64 startedAt = 0;
    QStringList lastLines;
};

// What the agent is doing, for the tray's Activity view: the bash sessions still running in each
// running sandbox (from the database, minus those the helper reported finished), the tail of their
// output (read through the control channel without moving the agent's read offset, once a second
// while someone watches), a Stop for each, and the most recent audit rows.
class ActivityMonitor : public QObject {
    Q_OBJECT
public:
    ActivityMonitor(Database &db, SandboxService &sandboxes, BashSessions &sessions, ChannelPool &channels,
                    QObject *parent = nullptr);

    static constexpr int kTailLines = 4;
    static constexpr int kTailBytes = 4096;

    QList<RunningCommand> running() const;
    int runningCount(const QString &sandboxId) const;
    // Newest first.
    QList<AuditEntry> recentCalls(int limit) const;
    // Which ChatGPT conversations created and last used a sandbox (AuditLogRepository::conversationsOf).
    AuditLogRepository::Conversations conversationsOf(const QString &sandboxId) const;
    // While watching, output tails refresh every `intervalMs`.
    void setWatching(bool watching, int intervalMs = 1000);
    bool isWatching() const { return m_timer.isActive(); }
    // Re-reads the tails of every running command now (answers arrive later; changed() follows).
    void refresh();
    void stop(const QString &sandboxId, const QString &sessionId, std::function<void(bool ok, const QString &error)> done);

public slots:
    // A tool call finished (a new bash session may exist, rows were added).
    void toolCallRecorded();

signals:
    void changed();
    void callsChanged();

private:
    struct Tail {
        qint64 size = -1;         // output size at the last read (-1: not read yet)
        bool finished = false;    // the helper said exited or lost
        QStringList lines;
        bool reading = false;
    };
    QList<RunningCommand> collect() const;
    void readTail(const QString &sandboxId, const QString &sessionId);

    // Outlive this: Services (runtime/Services.h) owns them, declared before this.
    Database &m_db;
    SandboxService &m_sandboxes;
    BashSessions &m_sessions;
    ChannelPool &m_channels;
    QHash<QString, Tail> m_tails;   // by session id
    QTimer m_timer;
};

} // namespace chat2sbx
