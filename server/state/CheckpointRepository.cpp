#include "state/CheckpointRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

QString checkpointStateName(CheckpointState state)
{
    switch (state) {
    case CheckpointState::Saving: return QStringLiteral("saving");
    case CheckpointState::Ready: return QStringLiteral("ready");
    case CheckpointState::Failed: return QStringLiteral("failed");
    }
    return QStringLiteral("saving");
}

bool parseCheckpointState(const QString &text, CheckpointState &out)
{
    for (const CheckpointState s : {CheckpointState::Saving, CheckpointState::Ready, CheckpointState::Failed}) {
        if (text == checkpointStateName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

QString Checkpoint::templateRefFor(const QString &checkpointId)
{
    return QStringLiteral("chat2sbx-checkpoint:") + checkpointId;
}

QString Checkpoint::cloudTemplateNameFor(const QString &checkpointId)
{
    return QStringLiteral("chat2sbx-") + QString(checkpointId).replace(QLatin1Char('_'), QLatin1Char('-'));
}

namespace {

const char kCheckpointColumns[] = "id, sandbox_id, label, template_ref, workspace_copy, state, failure, size_bytes, created_at,"
                                  " finished_at, pinned, clone_state, docker_images, placement, keeps_memory";

Checkpoint checkpointOfRow(const QSqlQuery &q)
{
    Checkpoint c;
    c.id = q.value(0).toString();
    c.sandboxId = q.value(1).toString();
    c.label = q.value(2).toString();
    c.templateRef = q.value(3).toString();
    c.workspaceCopy = q.value(4).toString();
    parseCheckpointState(q.value(5).toString(), c.state);
    c.failure = q.value(6).toString();
    c.sizeBytes = q.value(7).toLongLong();
    c.createdAt = q.value(8).toLongLong();
    c.finishedAt = q.value(9).isNull() ? 0 : q.value(9).toLongLong();
    c.pinned = q.value(10).toInt() != 0;
    c.cloneState = q.value(11).toString();
    c.dockerImages = q.value(12).toString().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    c.inCloud = q.value(13).toString() == QLatin1String("cloud");
    c.keepsMemory = q.value(14).toInt() != 0;
    return c;
}

QList<Checkpoint> checkpointsWhere(Database &db, const QString &where, const QVariant &value)
{
    QList<Checkpoint> out;
    if (!db.isOpen())
        return out;
    QSqlQuery q(db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM checkpoints WHERE %2 = ? ORDER BY created_at, rowid")
                  .arg(QLatin1String(kCheckpointColumns), where));
    q.addBindValue(value);
    if (q.exec())
        while (q.next())
            out.append(checkpointOfRow(q));
    return out;
}

} // namespace

bool CheckpointRepository::insert(const Checkpoint &c, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO checkpoints (%1) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)").arg(QLatin1String(kCheckpointColumns)),
                     {c.id, c.sandboxId, nullIfEmpty(c.label), c.templateRef, nullIfEmpty(c.workspaceCopy),
                      checkpointStateName(c.state), nullIfEmpty(c.failure), c.sizeBytes, c.createdAt,
                      c.finishedAt ? QVariant(c.finishedAt) : QVariant(), c.pinned ? 1 : 0, nullIfEmpty(c.cloneState),
                      nullIfEmpty(c.dockerImages.join(QLatin1Char('\n'))),
                      c.inCloud ? QStringLiteral("cloud") : QStringLiteral("local"), c.keepsMemory ? 1 : 0},
                     error, QStringLiteral("cannot record the checkpoint: %1"));
}

std::optional<Checkpoint> CheckpointRepository::find(const QString &id) const
{
    const QList<Checkpoint> found = checkpointsWhere(m_db, QStringLiteral("id"), id);
    return found.isEmpty() ? std::nullopt : std::optional<Checkpoint>(found.first());
}

QList<Checkpoint> CheckpointRepository::listFor(const QString &sandboxId) const
{
    return checkpointsWhere(m_db, QStringLiteral("sandbox_id"), sandboxId);
}

QList<Checkpoint> CheckpointRepository::inState(CheckpointState state) const
{
    return checkpointsWhere(m_db, QStringLiteral("state"), checkpointStateName(state));
}

QList<Checkpoint> CheckpointRepository::listLive() const
{
    QList<Checkpoint> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    if (q.exec(QStringLiteral("SELECT %1 FROM checkpoints WHERE state <> 'failed' ORDER BY created_at, rowid")
                   .arg(QLatin1String(kCheckpointColumns))))
        while (q.next())
            out.append(checkpointOfRow(q));
    return out;
}

int CheckpointRepository::finish(const QString &id, CheckpointState state, qint64 sizeBytes, const QString &failure, qint64 at,
                                 QString &error)
{
    QSqlQuery q(m_db.handle());
    if (!execBound(q, QStringLiteral("UPDATE checkpoints SET state = ?, size_bytes = ?, failure = ?, finished_at = ?"
                                     " WHERE id = ? AND state = 'saving'"),
                   {checkpointStateName(state), sizeBytes, nullIfEmpty(failure), at, id}, error,
                   QStringLiteral("cannot record the checkpoint: %1")))
        return -1;
    return q.numRowsAffected() > 0 ? 1 : 0;
}

bool CheckpointRepository::remove(const QString &id, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("DELETE FROM checkpoints WHERE id = ?"), {id}, error,
                     QStringLiteral("cannot remove the checkpoint: %1"));
}

bool CheckpointRepository::beginRestore(const PendingRestore &restore, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO sandbox_restores (sandbox_id, checkpoint_id, undo_checkpoint_id, started_at)"
                                       " VALUES (?,?,?,?)"),
                     {restore.sandboxId, restore.checkpointId, restore.undoCheckpointId, restore.startedAt}, error,
                     QStringLiteral("cannot record the restore: %1"));
}

bool CheckpointRepository::endRestore(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("DELETE FROM sandbox_restores WHERE sandbox_id = ?"), {sandboxId}, error,
                     QStringLiteral("cannot record the end of the restore: %1"));
}

namespace {

QList<CheckpointRepository::PendingRestore> restoresWhere(Database &db, const QString &where, const QVariantList &values)
{
    QList<CheckpointRepository::PendingRestore> out;
    if (!db.isOpen())
        return out;
    QSqlQuery q(db.handle());
    q.prepare(QStringLiteral("SELECT sandbox_id, checkpoint_id, undo_checkpoint_id, started_at FROM sandbox_restores %1"
                             " ORDER BY started_at, sandbox_id").arg(where));
    for (const QVariant &v : values)
        q.addBindValue(v);
    if (q.exec())
        while (q.next())
            out.append({q.value(0).toString(), q.value(1).toString(), q.value(2).toString(), q.value(3).toLongLong()});
    return out;
}

} // namespace

std::optional<CheckpointRepository::PendingRestore> CheckpointRepository::pendingRestore(const QString &sandboxId) const
{
    const auto found = restoresWhere(m_db, QStringLiteral("WHERE sandbox_id = ?"), {sandboxId});
    return found.isEmpty() ? std::nullopt : std::optional<PendingRestore>(found.first());
}

bool CheckpointRepository::pendingRestoreUsing(const QString &checkpointId) const
{
    return !restoresWhere(m_db, QStringLiteral("WHERE checkpoint_id = ? OR undo_checkpoint_id = ?"), {checkpointId, checkpointId}).isEmpty();
}

int CheckpointRepository::pinAsUndo(const QString &id, const QString &sandboxId, QString &error)
{
    QSqlQuery release(m_db.handle());
    if (!execBound(release, QStringLiteral("UPDATE checkpoints SET pinned = 0 WHERE sandbox_id = ? AND pinned = 2 AND id <> ?"),
                   {sandboxId, id}, error, QStringLiteral("cannot record the checkpoint: %1")))
        return -1;
    const int released = release.numRowsAffected();
    QSqlQuery pin(m_db.handle());
    if (!execBound(pin, QStringLiteral("UPDATE checkpoints SET pinned = 2 WHERE id = ?"), {id}, error,
                   QStringLiteral("cannot record the checkpoint: %1")))
        return -1;
    return released;
}

bool CheckpointRepository::setPinned(const QString &id, bool pinned, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE checkpoints SET pinned = ? WHERE id = ?"), {pinned ? 1 : 0, id}, error,
                     QStringLiteral("cannot record the checkpoint: %1"));
}

QList<CheckpointRepository::PendingRestore> CheckpointRepository::pendingRestores() const
{
    return restoresWhere(m_db, QString(), {});
}

bool CheckpointRepository::insertFork(const Fork &fork, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO sandbox_forks (sandbox_id, checkpoint_id, parent_sandbox_id, name, created_at)"
                                       " VALUES (?,?,?,?,?)"),
                     {fork.sandboxId, fork.checkpointId, fork.parentSandboxId, nullIfEmpty(fork.name), fork.createdAt}, error,
                     QStringLiteral("cannot record the fork: %1"));
}

namespace {

QList<CheckpointRepository::Fork> forksWhere(Database &db, const QString &where, const QVariantList &values)
{
    QList<CheckpointRepository::Fork> out;
    if (!db.isOpen())
        return out;
    QSqlQuery q(db.handle());
    q.prepare(QStringLiteral("SELECT sandbox_id, checkpoint_id, parent_sandbox_id, name, created_at FROM sandbox_forks %1").arg(where));
    for (const QVariant &v : values)
        q.addBindValue(v);
    if (q.exec())
        while (q.next())
            out.append({q.value(0).toString(), q.value(1).toString(), q.value(2).toString(), q.value(3).toString(),
                        q.value(4).toLongLong()});
    return out;
}

} // namespace

std::optional<CheckpointRepository::Fork> CheckpointRepository::forkOf(const QString &sandboxId) const
{
    const auto found = forksWhere(m_db, QStringLiteral("WHERE sandbox_id = ?"), {sandboxId});
    return found.isEmpty() ? std::nullopt : std::optional<Fork>(found.first());
}

QHash<QString, CheckpointRepository::Fork> CheckpointRepository::allForks() const
{
    QHash<QString, Fork> out;
    for (const Fork &f : forksWhere(m_db, QString(), {}))
        out.insert(f.sandboxId, f);
    return out;
}

int CheckpointRepository::forksOfCheckpoint(const QString &checkpointId) const
{
    return int(forksWhere(m_db, QStringLiteral("WHERE checkpoint_id = ?"), {checkpointId}).size());
}

namespace {
// A sandbox not destroyed was made from the checkpoint's template: a fork of it, or one restored to it
// (sbx cannot save a sandbox whose base image is gone).
const char kTemplateOfLiveSandbox[] =
    "(EXISTS (SELECT 1 FROM sandbox_forks f JOIN sandboxes fs ON fs.id = f.sandbox_id"
    " WHERE f.checkpoint_id = %1 AND fs.state <> 'destroyed')"
    " OR EXISTS (SELECT 1 FROM sandboxes bs WHERE bs.state <> 'destroyed'"
    " AND bs.template_ref = (SELECT tc.template_ref FROM checkpoints tc WHERE tc.id = %1)))";
} // namespace

bool CheckpointRepository::isTemplateOfLiveSandbox(const QString &checkpointId) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1").arg(QString::fromLatin1(kTemplateOfLiveSandbox).arg(QStringLiteral("?"))));
    q.addBindValue(checkpointId);
    q.addBindValue(checkpointId);
    return q.exec() && q.next() && q.value(0).toInt() != 0;
}

QList<Checkpoint> CheckpointRepository::orphaned(int limit) const
{
    QList<Checkpoint> out;
    if (!m_db.isOpen())
        return out;
    QStringList columns;
    for (const QString &c : QString::fromLatin1(kCheckpointColumns).split(QLatin1Char(',')))
        columns << QStringLiteral("c.") + c.trimmed();
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM checkpoints c LEFT JOIN sandboxes s ON s.id = c.sandbox_id"
                             " WHERE c.state <> 'saving' AND c.pinned = 0 AND (s.id IS NULL OR s.state = 'destroyed') AND NOT %2"
                             " AND NOT EXISTS (SELECT 1 FROM sandbox_restores r WHERE r.checkpoint_id = c.id OR r.undo_checkpoint_id = c.id)"
                             " ORDER BY c.created_at LIMIT ?")
                  .arg(columns.join(QStringLiteral(", ")), QString::fromLatin1(kTemplateOfLiveSandbox).arg(QStringLiteral("c.id"))));
    q.addBindValue(limit);
    if (q.exec())
        while (q.next())
            out.append(checkpointOfRow(q));
    return out;
}

} // namespace chat2sbx
