#include "state/BashSessionRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "id, sandbox_id, command, cwd, status, exit_code, started_at, finished_at, read_offset, lost_reason";

BashSessionRecord fromRow(const QSqlQuery &q)
{
    BashSessionRecord s;
    s.id = q.value(0).toString();
    s.sandboxId = q.value(1).toString();
    s.command = q.value(2).toString();
    s.cwd = q.value(3).toString();
    s.exited = q.value(4).toString() == QLatin1String("exited");
    if (!q.value(5).isNull())
        s.exitCode = q.value(5).toInt();
    s.startedAt = q.value(6).toLongLong();
    s.finishedAt = q.value(7).isNull() ? 0 : q.value(7).toLongLong();
    s.readOffset = q.value(8).toLongLong();
    s.lostReason = q.value(9).toString();
    return s;
}

bool run(QSqlQuery &q, QString &error)
{
    return execOrReport(q, error, QStringLiteral("cannot record bash session: %1"));
}

} // namespace

bool BashSessionRepository::insert(const BashSessionRecord &s, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO bash_sessions (%1) VALUES (?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)));
    q.addBindValue(s.id);
    q.addBindValue(s.sandboxId);
    q.addBindValue(s.command.size() > kMaxStoredCommandChars ? s.command.left(kMaxStoredCommandChars) + QStringLiteral("…")
                                                             : s.command);
    q.addBindValue(s.cwd.isEmpty() ? QVariant() : QVariant(s.cwd));
    q.addBindValue(s.exited ? QStringLiteral("exited") : QStringLiteral("running"));
    q.addBindValue(s.exitCode ? QVariant(*s.exitCode) : QVariant());
    q.addBindValue(s.startedAt);
    q.addBindValue(s.finishedAt ? QVariant(s.finishedAt) : QVariant());
    q.addBindValue(s.readOffset);
    q.addBindValue(s.lostReason.isEmpty() ? QVariant() : QVariant(s.lostReason));
    return run(q, error);
}

bool BashSessionRepository::remove(const QString &id, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM bash_sessions WHERE id = ?"));
    q.addBindValue(id);
    return run(q, error);
}

std::optional<BashSessionRecord> BashSessionRepository::find(const QString &id) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM bash_sessions WHERE id = ?").arg(QLatin1String(kColumns)));
    q.addBindValue(id);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

QList<BashSessionRecord> BashSessionRepository::listForSandbox(const QString &sandboxId, int maxEnded) const
{
    QList<BashSessionRecord> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM bash_sessions WHERE sandbox_id = ? AND (status = 'running' OR id IN "
                             "(SELECT id FROM bash_sessions WHERE sandbox_id = ? AND status <> 'running' "
                             "ORDER BY started_at DESC, id DESC LIMIT ?)) ORDER BY started_at, id")
                  .arg(QLatin1String(kColumns)));
    q.addBindValue(sandboxId);
    q.addBindValue(sandboxId);
    q.addBindValue(maxEnded);
    if (q.exec())
        while (q.next())
            out.append(fromRow(q));
    return out;
}

int BashSessionRepository::countEnded(const QString &sandboxId) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT COUNT(*) FROM bash_sessions WHERE sandbox_id = ? AND status <> 'running'"));
    q.addBindValue(sandboxId);
    return q.exec() && q.next() ? q.value(0).toInt() : 0;
}

int BashSessionRepository::prune(qint64 nowMs, qint64 maxEndedAgeMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM bash_sessions WHERE sandbox_id IN (SELECT id FROM sandboxes WHERE state = 'destroyed') "
                             "OR (status <> 'running' AND finished_at IS NOT NULL AND finished_at < ?)"));
    q.addBindValue(nowMs - maxEndedAgeMs);
    if (!run(q, error))
        return -1;
    return q.numRowsAffected();
}

bool BashSessionRepository::setReadOffset(const QString &id, qint64 offset, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE bash_sessions SET read_offset = ? WHERE id = ?"));
    q.addBindValue(offset);
    q.addBindValue(id);
    return run(q, error);
}

bool BashSessionRepository::markExited(const QString &id, std::optional<int> exitCode, qint64 finishedAt, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE bash_sessions SET status = 'exited', exit_code = ?, finished_at = ? WHERE id = ?"));
    q.addBindValue(exitCode ? QVariant(*exitCode) : QVariant());
    q.addBindValue(finishedAt);
    q.addBindValue(id);
    return run(q, error);
}

bool BashSessionRepository::markLost(const QString &id, const QString &reason, qint64 finishedAt, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE bash_sessions SET status = 'exited', exit_code = NULL, finished_at = ?, lost_reason = ? "
                             "WHERE id = ? AND status = 'running'"));
    q.addBindValue(finishedAt);
    q.addBindValue(reason);
    q.addBindValue(id);
    return run(q, error);
}

int BashSessionRepository::markSandboxSessionsLost(const QString &sandboxId, const QString &reason, qint64 startedBefore,
                                                   qint64 finishedAt, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE bash_sessions SET status = 'exited', exit_code = NULL, finished_at = ?, lost_reason = ? "
                             "WHERE sandbox_id = ? AND status = 'running' AND started_at <= ?"));
    q.addBindValue(finishedAt);
    q.addBindValue(reason);
    q.addBindValue(sandboxId);
    q.addBindValue(startedBefore);
    if (!run(q, error))
        return -1;
    return q.numRowsAffected();
}

bool BashSessionRepository::hasRunning(const QString &sandboxId) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT 1 FROM bash_sessions WHERE sandbox_id = ? AND status = 'running' LIMIT 1"));
    q.addBindValue(sandboxId);
    return q.exec() && q.next();
}

} // namespace chat2sbx
