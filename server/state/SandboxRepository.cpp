#include "state/SandboxRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"
#include "state/SqliteStatement.h"
#include "state/WorkspaceRepository.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] =
    "id, workspace_id, runtime_name, state, memory, failure_reason, created_at, updated_at, last_activity_at, idle_deadline,"
    " slept_at, woke_at, sleep_reason, unreachable_since, unreachable_lists, unreachable_why, template_ref,"
    " placement, cloud_size, expires_at, expires_ceiling_at, workspace_in_vm";

// Row: QSqlQuery or SqliteStatement (the list's join).
template <class Row>
SandboxRecord fromRow(const Row &q)
{
    SandboxRecord r;
    r.id = q.value(0).toString();
    r.workspaceId = q.value(1).toString();
    r.runtimeName = q.value(2).toString();
    parseSandboxState(q.value(3).toString(), r.state);
    r.memory = q.value(4).toString();
    r.reason = q.value(5).toString();
    r.createdAt = q.value(6).toLongLong();
    r.updatedAt = q.value(7).toLongLong();
    r.lastActivityAt = q.value(8).toLongLong();
    r.idleDeadline = q.value(9).isNull() ? 0 : q.value(9).toLongLong();
    r.sleptAt = q.value(10).isNull() ? 0 : q.value(10).toLongLong();
    r.wokeAt = q.value(11).isNull() ? 0 : q.value(11).toLongLong();
    r.sleepReason = q.value(12).toString();
    r.unreachableSince = q.value(13).isNull() ? 0 : q.value(13).toLongLong();
    r.unreachableLists = q.value(14).toInt();
    r.unreachableWhy = q.value(15).toString();
    r.templateRef = q.value(16).toString();
    r.placement = q.value(17).toString() == QLatin1String("cloud") ? QStringLiteral("cloud") : QStringLiteral("local");
    r.cloudSize = q.value(18).toString();
    r.expiresAt = q.value(19).isNull() ? 0 : q.value(19).toLongLong();
    r.expiresCeilingAt = q.value(20).isNull() ? 0 : q.value(20).toLongLong();
    r.workspaceInVm = q.value(21).toInt() != 0;
    return r;
}

bool run(QSqlQuery &q, QString &error)
{
    return execOrReport(q, error, QStringLiteral("database error: %1"));
}

QList<SandboxRecord> all(QSqlQuery &q)
{
    QList<SandboxRecord> out;
    if (q.exec())
        while (q.next())
            out.append(fromRow(q));
    return out;
}

} // namespace

bool SandboxRepository::insertWithinLimit(const SandboxRecord &r, int limit, bool &limitReached, QString &error)
{
    limitReached = false;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO sandboxes (%1) SELECT ?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,? "
                             "WHERE ? <= 0 OR (SELECT COUNT(*) FROM sandboxes WHERE state IN %2) < ?")
                  .arg(QLatin1String(kColumns), activeSandboxStatesSql()));
    q.addBindValue(r.id);
    q.addBindValue(r.workspaceId);
    q.addBindValue(r.runtimeName);
    q.addBindValue(sandboxStateName(r.state));
    q.addBindValue(nullIfEmpty(r.memory));
    q.addBindValue(nullIfEmpty(r.reason));
    q.addBindValue(r.createdAt);
    q.addBindValue(r.updatedAt);
    q.addBindValue(r.lastActivityAt);
    q.addBindValue(r.idleDeadline ? QVariant(r.idleDeadline) : QVariant());
    q.addBindValue(r.sleptAt ? QVariant(r.sleptAt) : QVariant());
    q.addBindValue(r.wokeAt ? QVariant(r.wokeAt) : QVariant());
    q.addBindValue(nullIfEmpty(r.sleepReason));
    q.addBindValue(r.unreachableSince ? QVariant(r.unreachableSince) : QVariant());
    q.addBindValue(r.unreachableLists);
    q.addBindValue(nullIfEmpty(r.unreachableWhy));
    q.addBindValue(nullIfEmpty(r.templateRef));
    q.addBindValue(r.placement);
    q.addBindValue(nullIfEmpty(r.cloudSize));
    q.addBindValue(r.expiresAt ? QVariant(r.expiresAt) : QVariant());
    q.addBindValue(r.expiresCeilingAt ? QVariant(r.expiresCeilingAt) : QVariant());
    q.addBindValue(r.workspaceInVm ? 1 : 0);
    q.addBindValue(limit);
    q.addBindValue(limit);
    if (!run(q, error))
        return false;
    if (q.numRowsAffected() != 1) {
        limitReached = true;
        return false;
    }
    return true;
}

std::optional<SandboxRecord> SandboxRepository::find(const QString &id) const
{
    static const QString sql = QStringLiteral("SELECT %1 FROM sandboxes WHERE id = ?").arg(QLatin1String(kColumns));
    auto st = m_db.prepared(sql);
    QSqlQuery &q = st.query();
    q.bindValue(0, id);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

std::optional<SandboxRecord> SandboxRepository::findWithWorkspace(const QString &id, QString &workspaceMode,
                                                                  QString &workspacePath) const
{
    auto st = m_db.prepared(QStringLiteral(
        "SELECT s.id, s.workspace_id, s.runtime_name, s.state, s.memory, s.failure_reason, s.created_at,"
        " s.updated_at, s.last_activity_at, s.idle_deadline, s.slept_at, s.woke_at, s.sleep_reason, s.unreachable_since,"
        " s.unreachable_lists, s.unreachable_why, s.template_ref, s.placement, s.cloud_size, s.expires_at, s.expires_ceiling_at,"
        " s.workspace_in_vm, w.mode, w.host_path"
        " FROM sandboxes s LEFT JOIN workspaces w ON w.id = s.workspace_id WHERE s.id = ?"));
    QSqlQuery &q = st.query();
    q.bindValue(0, id);
    if (!q.exec() || !q.next())
        return std::nullopt;
    workspaceMode = q.value(22).toString();
    workspacePath = q.value(23).toString();
    return fromRow(q);
}

QList<SandboxRecord> SandboxRepository::listCloud() const
{
    if (!m_db.isOpen())
        return {};
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes WHERE placement = 'cloud' AND state <> 'destroyed' ORDER BY created_at, id")
                  .arg(QLatin1String(kColumns)));
    return all(q);
}

QList<SandboxRecord> SandboxRepository::list(bool includeDestroyed) const
{
    if (!m_db.isOpen())
        return {};   // the tray reads before the server opened the database
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes %2 ORDER BY created_at, id")
                  .arg(QLatin1String(kColumns),
                       includeDestroyed ? QString() : QStringLiteral("WHERE state <> 'destroyed'")));
    return all(q);
}

namespace {

// One row per sandbox and exposed port (sandboxes without ports: one row with NULL port columns),
// ordered so that a sandbox's rows are adjacent, from `source` (the sandboxes table, or a page of it).
QByteArray listViewsSql(const char *columns, const QString &source)
{
    QStringList sandboxColumns;
    for (const QString &c : QString::fromLatin1(columns).split(QStringLiteral(", ")))
        sandboxColumns.append(QStringLiteral("s.") + c);
    return QStringLiteral("SELECT %1, %2, p.sandbox_port, p.host_ip, p.host_port, f.parent_sandbox_id, f.checkpoint_id"
                          " FROM %3 s"
                          " LEFT JOIN workspaces w ON w.id = s.workspace_id"
                          " LEFT JOIN sandbox_ports p ON p.sandbox_id = s.id"
                          " LEFT JOIN sandbox_forks f ON f.sandbox_id = s.id"
                          " WHERE s.state <> 'destroyed' ORDER BY s.created_at, s.id, p.sandbox_port")
        .arg(sandboxColumns.join(QStringLiteral(", ")), WorkspaceRepository::columns(QStringLiteral("w.")), source)
        .toUtf8();
}

} // namespace

QList<SandboxView> SandboxRepository::listViews() const
{
    return listViews(Page{});
}

QList<SandboxView> SandboxRepository::listViews(const Page &page) const
{
    // Run with SQLite's API: sandbox_list's query. A page is the newest `limit` before the cursor,
    // picked by the (created_at, id) index before the joins.
    static const QByteArray all = listViewsSql(kColumns, QStringLiteral("sandboxes"));
    static const QByteArray newest = listViewsSql(
        kColumns, QStringLiteral("(SELECT * FROM sandboxes WHERE state <> 'destroyed' ORDER BY created_at DESC, id DESC LIMIT ?1)"));
    static const QByteArray older = listViewsSql(
        kColumns, QStringLiteral("(SELECT * FROM sandboxes WHERE state <> 'destroyed' AND (created_at < ?2 OR (created_at = ?2 AND id < ?3))"
                                 " ORDER BY created_at DESC, id DESC LIMIT ?1)"));
    static const int kWorkspaceFirst = int(QString::fromLatin1(kColumns).count(QLatin1Char(',')) + 1);
    static const int kPortFirst = kWorkspaceFirst + int(WorkspaceRepository::columns({}).count(QLatin1Char(',')) + 1);
    qint64 beforeCreatedAt = 0;
    QString beforeId;
    const bool paged = page.limit > 0;
    const bool fromCursor = paged && parseCursor(page.before, beforeCreatedAt, beforeId);
    QList<SandboxView> out;
    SqliteStatement q = m_db.sqlite(!paged ? all.constData() : fromCursor ? older.constData() : newest.constData());
    if (paged) {
        q.bind(0, qint64(page.limit));   // ?1 (bind counts from 0)
        if (fromCursor) {
            q.bind(1, beforeCreatedAt);
            q.bind(2, beforeId);
        }
    }
    while (q.next()) {
        if (out.isEmpty() || out.constLast().record.id != q.value(0).toString()) {
            SandboxView v;
            v.record = fromRow(q);
            if (!q.value(kWorkspaceFirst).isNull())
                v.workspace = WorkspaceRepository::fromRow(q, kWorkspaceFirst);
            v.forkedFromSandbox = q.value(kPortFirst + 3).toString();
            v.forkedFromCheckpoint = q.value(kPortFirst + 4).toString();
            out.append(std::move(v));
        }
        if (!q.value(kPortFirst).isNull())
            out.last().ports.append({q.value(kPortFirst).toInt(), q.value(kPortFirst + 1).toString(),
                                     q.value(kPortFirst + 2).toInt()});
    }
    return out;
}

int SandboxRepository::countListed() const
{
    SqliteStatement q = m_db.sqlite("SELECT COUNT(*) FROM sandboxes WHERE state <> 'destroyed'");
    return q.next() ? q.value(0).toInt() : 0;
}

QString SandboxRepository::cursorOf(const SandboxRecord &oldest)
{
    return QString::number(oldest.createdAt) + QLatin1Char('.') + oldest.id;
}

bool SandboxRepository::parseCursor(const QString &cursor, qint64 &createdAt, QString &id)
{
    const qsizetype dot = cursor.indexOf(QLatin1Char('.'));
    if (dot <= 0 || cursor.size() > 128)
        return false;
    bool ok = false;
    createdAt = cursor.left(dot).toLongLong(&ok);
    id = cursor.mid(dot + 1);
    return ok && createdAt >= 0 && id.startsWith(QLatin1String("sbx_"))
           && std::all_of(id.cbegin(), id.cend(), [](QChar c) { return c.isLetterOrNumber() || c == QLatin1Char('_'); });
}

void SandboxRepository::readForkOrigin(SandboxView &view) const
{
    static const QString sql = QStringLiteral("SELECT parent_sandbox_id, checkpoint_id FROM sandbox_forks WHERE sandbox_id = ?");
    auto st = m_db.prepared(sql);
    QSqlQuery &q = st.query();
    q.bindValue(0, view.record.id);
    if (q.exec() && q.next()) {
        view.forkedFromSandbox = q.value(0).toString();
        view.forkedFromCheckpoint = q.value(1).toString();
    }
}

QList<SandboxRecord> SandboxRepository::inState(SandboxState state) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes WHERE state = ? ORDER BY created_at, id").arg(QLatin1String(kColumns)));
    q.addBindValue(sandboxStateName(state));
    return all(q);
}

std::optional<SandboxRecord> SandboxRepository::findForWorkspace(const QString &workspaceId, SandboxState state) const
{
    QSqlQuery q(m_db.handle());
    // A clone's forks share its workspace: the sandbox the workspace was made for comes first.
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes WHERE workspace_id = ? AND state = ?"
                             " ORDER BY id IN (SELECT sandbox_id FROM sandbox_forks), created_at DESC LIMIT 1")
                  .arg(QLatin1String(kColumns)));
    q.addBindValue(workspaceId);
    q.addBindValue(sandboxStateName(state));
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

int SandboxRepository::countActive() const
{
    QSqlQuery q(m_db.handle());
    if (q.exec(QStringLiteral("SELECT COUNT(*) FROM sandboxes WHERE state IN %1").arg(activeSandboxStatesSql())) && q.next())
        return q.value(0).toInt();
    return 0;
}

QList<SandboxRecord> SandboxRepository::idleExpired(qint64 nowMs) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes WHERE state IN ('running','stopped') AND idle_deadline IS NOT NULL "
                             "AND idle_deadline <= ? ORDER BY idle_deadline").arg(QLatin1String(kColumns)));
    q.addBindValue(nowMs);
    return all(q);
}

QList<SandboxRecord> SandboxRepository::idleSince(qint64 lastActivityBefore) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM sandboxes WHERE state = 'running' AND last_activity_at <= ? "
                             "ORDER BY last_activity_at").arg(QLatin1String(kColumns)));
    q.addBindValue(lastActivityBefore);
    return all(q);
}

bool SandboxRepository::setState(const QString &id, SandboxState state, const QString &reason, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET state = ?, failure_reason = ?, updated_at = ? WHERE id = ?"));
    q.addBindValue(sandboxStateName(state));
    q.addBindValue(nullIfEmpty(reason));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::transition(const QString &id, SandboxState from, SandboxState to, const QString &reason,
                                   qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET state = ?, failure_reason = ?, updated_at = ? WHERE id = ? AND state = ?"));
    q.addBindValue(sandboxStateName(to));
    q.addBindValue(nullIfEmpty(reason));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    q.addBindValue(sandboxStateName(from));
    if (!run(q, error))
        return false;
    return q.numRowsAffected() == 1;
}

bool SandboxRepository::renew(const QString &id, qint64 nowMs, qint64 idleDeadline, QString &error)
{
    auto st = m_db.prepared(QStringLiteral("UPDATE sandboxes SET last_activity_at = ?, idle_deadline = ? WHERE id = ?"));
    QSqlQuery &q = st.query();
    q.bindValue(0, nowMs);
    q.bindValue(1, idleDeadline);
    q.bindValue(2, id);
    return run(q, error);
}

bool SandboxRepository::markStopped(const QString &id, qint64 sleptAt, const QString &why, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET state = 'stopped', slept_at = ?, sleep_reason = ?, updated_at = ? "
                             "WHERE id = ? AND state = 'running'"));
    q.addBindValue(sleptAt);
    q.addBindValue(nullIfEmpty(why));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error) && q.numRowsAffected() == 1;
}

bool SandboxRepository::markWoken(const QString &id, qint64 nowMs, qint64 idleDeadline, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET state = 'running', woke_at = ?, updated_at = ?, last_activity_at = ?, "
                             "idle_deadline = ? WHERE id = ? AND state = 'stopped'"));
    q.addBindValue(nowMs);
    q.addBindValue(nowMs);
    q.addBindValue(nowMs);
    q.addBindValue(idleDeadline);
    q.addBindValue(id);
    return run(q, error) && q.numRowsAffected() == 1;
}

bool SandboxRepository::recordSleepAndWake(const QString &id, qint64 sleptAt, qint64 wokeAt, const QString &why,
                                           QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET slept_at = ?, woke_at = ?, sleep_reason = ?, updated_at = ? WHERE id = ?"));
    q.addBindValue(sleptAt);
    q.addBindValue(wokeAt);
    q.addBindValue(nullIfEmpty(why));
    q.addBindValue(wokeAt);
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::markUnreachable(const QString &id, const QString &why, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET unreachable_since = COALESCE(unreachable_since, ?),"
                             " unreachable_lists = unreachable_lists + 1, unreachable_why = ?, updated_at = ? WHERE id = ?"));
    q.addBindValue(nowMs);
    q.addBindValue(nullIfEmpty(why));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::clearUnreachable(const QString &id, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET unreachable_since = NULL, unreachable_lists = 0, unreachable_why = NULL,"
                             " updated_at = ? WHERE id = ?"));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::setTemplateRef(const QString &id, const QString &templateRef, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET template_ref = ? WHERE id = ?"));
    q.addBindValue(nullIfEmpty(templateRef));
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::setExpiry(const QString &id, qint64 expiresAt, qint64 ceilingAt, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET expires_at = ?, expires_ceiling_at = COALESCE(?, expires_ceiling_at) WHERE id = ?"));
    q.addBindValue(expiresAt > 0 ? QVariant(expiresAt) : QVariant());
    q.addBindValue(ceilingAt > 0 ? QVariant(ceilingAt) : QVariant());
    q.addBindValue(id);
    return run(q, error);
}

bool SandboxRepository::recoverFailed(const QString &id, SandboxState to, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET state = ?, failure_reason = NULL, updated_at = ? WHERE id = ? AND state = 'failed'"));
    q.addBindValue(sandboxStateName(to));
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error) && q.numRowsAffected() == 1;
}

bool SandboxRepository::setReason(const QString &id, const QString &reason, qint64 nowMs, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE sandboxes SET failure_reason = ?, updated_at = ? WHERE id = ?"));
    q.addBindValue(reason);
    q.addBindValue(nowMs);
    q.addBindValue(id);
    return run(q, error);
}

QList<SandboxPortRecord> SandboxRepository::ports(const QString &sandboxId) const
{
    QList<SandboxPortRecord> out;
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT sandbox_port, host_ip, host_port FROM sandbox_ports WHERE sandbox_id = ? ORDER BY sandbox_port"));
    q.addBindValue(sandboxId);
    if (q.exec())
        while (q.next())
            out.append({q.value(0).toInt(), q.value(1).toString(), q.value(2).toInt()});
    return out;
}

std::optional<SandboxPortRecord> SandboxRepository::findPort(const QString &sandboxId, int sandboxPort) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT sandbox_port, host_ip, host_port FROM sandbox_ports WHERE sandbox_id = ? AND sandbox_port = ?"));
    q.addBindValue(sandboxId);
    q.addBindValue(sandboxPort);
    if (q.exec() && q.next())
        return SandboxPortRecord{q.value(0).toInt(), q.value(1).toString(), q.value(2).toInt()};
    return std::nullopt;
}

bool SandboxRepository::upsertPort(const QString &sandboxId, const SandboxPortRecord &p, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT OR REPLACE INTO sandbox_ports (sandbox_id, sandbox_port, host_ip, host_port) VALUES (?,?,?,?)"));
    q.addBindValue(sandboxId);
    q.addBindValue(p.sandboxPort);
    q.addBindValue(p.hostIp);
    q.addBindValue(p.hostPort);
    return run(q, error);
}

bool SandboxRepository::clearPorts(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM sandbox_ports WHERE sandbox_id = ?"));
    q.addBindValue(sandboxId);
    return run(q, error);
}

bool SandboxRepository::removePort(const QString &sandboxId, int sandboxPort, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM sandbox_ports WHERE sandbox_id = ? AND sandbox_port = ?"));
    q.addBindValue(sandboxId);
    q.addBindValue(sandboxPort);
    return run(q, error);
}

} // namespace chat2sbx
