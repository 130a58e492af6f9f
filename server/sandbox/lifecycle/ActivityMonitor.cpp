#include "sandbox/lifecycle/ActivityMonitor.h"

#include "sandbox/bash/BashSessions.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "state/BashSessionRepository.h"
#include "state/Database.h"

#include <QSet>

#include <QPointer>

namespace chat2sbx {

ActivityMonitor::ActivityMonitor(Database &db, SandboxService &sandboxes, BashSessions &sessions, ChannelPool &channels,
                                 QObject *parent)
    : QObject(parent), m_db(db), m_sandboxes(sandboxes), m_sessions(sessions), m_channels(channels)
{
    connect(&m_timer, &QTimer::timeout, this, &ActivityMonitor::refresh);
    connect(&sandboxes, &SandboxService::sandboxesChanged, this, &ActivityMonitor::changed);
}

QList<RunningCommand> ActivityMonitor::collect() const
{
    QList<RunningCommand> out;
    if (!m_db.isOpen())
        return out;
    BashSessionRepository repo(m_db);
    for (const SandboxView &v : m_sandboxes.list()) {
        if (v.record.state != SandboxState::Running)
            continue;
        for (const BashSessionRecord &s : repo.listForSandbox(v.record.id)) {
            if (s.exited)
                continue;
            const auto tail = m_tails.constFind(s.id);
            if (tail != m_tails.constEnd() && tail->finished)
                continue;
            out.append(RunningCommand{s.sandboxId, s.id, s.command, s.startedAt,
                                      tail != m_tails.constEnd() ? tail->lines : QStringList()});
        }
    }
    return out;
}

QList<RunningCommand> ActivityMonitor::running() const
{
    return collect();
}

int ActivityMonitor::runningCount(const QString &sandboxId) const
{
    int n = 0;
    for (const RunningCommand &c : collect())
        n += c.sandboxId == sandboxId ? 1 : 0;
    return n;
}

QList<AuditEntry> ActivityMonitor::recentCalls(int limit) const
{
    if (!m_db.isOpen())
        return {};
    return AuditLogRepository(m_db).recent(limit);
}

AuditLogRepository::Conversations ActivityMonitor::conversationsOf(const QString &sandboxId) const
{
    if (!m_db.isOpen())
        return {};
    return AuditLogRepository(m_db).conversationsOf(sandboxId);
}

void ActivityMonitor::setWatching(bool watching, int intervalMs)
{
    if (!watching) {
        m_timer.stop();
        return;
    }
    m_timer.setInterval(intervalMs);
    if (!m_timer.isActive()) {
        m_timer.start();
        refresh();
    }
}

void ActivityMonitor::toolCallRecorded()
{
    emit callsChanged();
    emit changed();
    if (isWatching())
        refresh();
}

void ActivityMonitor::refresh()
{
    if (!m_db.isOpen())
        return;
    const QList<RunningCommand> now = collect();
    QSet<QString> live;
    for (const RunningCommand &c : now) {
        live.insert(c.sessionId);
        readTail(c.sandboxId, c.sessionId);
    }
    for (auto it = m_tails.begin(); it != m_tails.end();)
        it = live.contains(it.key()) || it->finished ? ++it : m_tails.erase(it);
}

void ActivityMonitor::readTail(const QString &sandboxId, const QString &sessionId)
{
    Tail &t = m_tails[sessionId];
    if (t.reading)
        return;
    // The sandbox's existing channel only: watching must not renew idle deadlines or start channels.
    SandboxChannel *channel = m_channels.find(sandboxId);
    if (!channel)
        return;
    t.reading = true;
    // One round trip: from a little before the last known end (the first read only learns the size).
    const qint64 from = t.size < 0 ? 0 : qMax<qint64>(0, t.size - kTailBytes);
    const int max = t.size < 0 ? 0 : 256 * 1024;
    QPointer<ActivityMonitor> self(this);
    channel->request(
        QStringLiteral("bash_read"), {sessionId.toUtf8(), QByteArray::number(from), QByteArray::number(max)}, 10000,
        [self, sandboxId, sessionId, from](const ChannelReply &r) {
            if (!self || !self->m_tails.contains(sessionId))
                return;
            Tail &tail = self->m_tails[sessionId];
            tail.reading = false;
            if (!r.ok)
                return;
            const qint64 size = r.meta.value(QStringLiteral("size")).toLongLong();
            const QString state = r.meta.value(QStringLiteral("state"));
            const bool firstRead = tail.size < 0;
            tail.size = size;
            tail.finished = state != QLatin1String("running");
            if (!r.data.isEmpty()) {
                QList<QByteArray> parts = r.data.split('\n');
                if (from > 0 && parts.size() > 1)
                    parts.removeFirst();   // starts mid-line (maybe mid-character)
                QStringList lines;
                for (auto it = parts.crbegin(); it != parts.crend() && lines.size() < kTailLines; ++it) {
                    const QString line = QString::fromUtf8(*it).trimmed();
                    if (!line.isEmpty())
                        lines.prepend(line.size() > 200 ? line.left(199) + QChar(0x2026) : line);
                }
                tail.lines = lines;
            }
            emit self->changed();
            if (firstRead && !tail.finished && size > 0)
                self->readTail(sandboxId, sessionId);   // now that the size is known
        });
}

void ActivityMonitor::stop(const QString &sandboxId, const QString &sessionId,
                           std::function<void(bool ok, const QString &error)> done)
{
    RunningSandbox sandbox;
    QString error;
    if (!m_sandboxes.resolveRunning(sandboxId, sandbox, error))
        return done(false, m_sandboxes.publicText(error));
    QPointer<ActivityMonitor> self(this);
    m_sessions.stop(sandbox, sessionId, [self, sessionId, done](bool ok, const QString &stopError, const BashSnapshot &s) {
        if (self && ok && s.exited) {
            self->m_tails[sessionId].finished = true;
            emit self->changed();
        }
        done(ok, stopError);
    });
}

} // namespace chat2sbx
