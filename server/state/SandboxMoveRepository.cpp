#include "state/SandboxMoveRepository.h"

#include "state/Database.h"
#include "state/SqlStatement.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {

namespace {

const QString kMoveSelect = QStringLiteral("SELECT sandbox_id, to_placement, step, source_runtime, dest_prefix, dest_runtime, ttl_seconds,"
                                       " started_at, warnings, source_workspace_in_vm, source_cloud_size FROM sandbox_moves");

// '' rather than NULL for the NOT NULL text columns.
QString notNull(const QString &text)
{
    return text.isNull() ? QStringLiteral("") : text;
}

SandboxMove moveFromRow(const QSqlQuery &q)
{
    SandboxMove m;
    m.sandboxId = q.value(0).toString();
    m.toCloud = q.value(1).toString() == QLatin1String("cloud");
    m.step = q.value(2).toString();
    m.sourceRuntime = q.value(3).toString();
    m.destPrefix = q.value(4).toString();
    m.destRuntime = q.value(5).toString();
    m.ttlSeconds = q.value(6).toLongLong();
    m.startedAt = q.value(7).toLongLong();
    const QString warnings = q.value(8).toString();
    if (!warnings.isEmpty())
        m.warnings = warnings.split(QLatin1Char('\n'));
    m.sourceWorkspaceInVm = q.value(9).toInt() != 0;
    m.sourceCloudSize = q.value(10).toString();
    return m;
}

} // namespace

bool SandboxMoveRepository::begin(const SandboxMove &m, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("INSERT INTO sandbox_moves (sandbox_id, to_placement, step, source_runtime, dest_prefix,"
                                       " ttl_seconds, source_workspace_in_vm, source_cloud_size, started_at) VALUES (?,?,'moving',?,?,?,?,?,?)"),
                     {m.sandboxId, m.toCloud ? QStringLiteral("cloud") : QStringLiteral("local"), m.sourceRuntime, m.destPrefix,
                      m.ttlSeconds, m.sourceWorkspaceInVm ? 1 : 0, notNull(m.sourceCloudSize), m.startedAt},
                     error, QStringLiteral("cannot record the move: %1"));
}

bool SandboxMoveRepository::markCreated(const QString &sandboxId, const QString &destRuntime, const QStringList &warnings,
                                        QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE sandbox_moves SET step = 'created', dest_runtime = ?, warnings = ? WHERE sandbox_id = ?"),
                     {notNull(destRuntime), notNull(warnings.join(QLatin1Char('\n'))), sandboxId}, error,
                     QStringLiteral("cannot record the move's destination: %1"));
}

bool SandboxMoveRepository::switchRecord(const QString &sandboxId, const SandboxMoveSwitch &to, QString &error, bool back)
{
    QSqlDatabase &handle = m_db.handle();
    if (!handle.transaction()) {
        error = QStringLiteral("cannot switch the sandbox record: no transaction");
        return false;
    }
    QSqlQuery record(handle);
    QSqlQuery ports(handle);
    QSqlQuery step(handle);
    const QString what = QStringLiteral("cannot switch the sandbox record: %1");
    const bool ok =
        execBound(record, QStringLiteral("UPDATE sandboxes SET runtime_name = ?, placement = ?, cloud_size = ?, expires_at = ?,"
                                         " expires_ceiling_at = ?, workspace_in_vm = ?, state = ?, updated_at = ?,"
                                         " unreachable_since = NULL, unreachable_lists = 0, unreachable_why = NULL WHERE id = ?"),
                  {to.runtimeName, to.placement, to.cloudSize.isEmpty() ? QVariant() : QVariant(to.cloudSize),
                   to.expiresAt > 0 ? QVariant(to.expiresAt) : QVariant(),
                   to.expiresCeilingAt > 0 ? QVariant(to.expiresCeilingAt) : QVariant(), to.workspaceInVm ? 1 : 0,
                   back ? QStringLiteral("stopped") : QStringLiteral("running"), to.nowMs,
                   sandboxId},
                  error, what)
        // Published ports belong to the runtime they were published on: none move (sbx-cloud.md §6).
        && execBound(ports, QStringLiteral("DELETE FROM sandbox_ports WHERE sandbox_id = ?"), {sandboxId}, error, what)
        && execBound(step, QStringLiteral("UPDATE sandbox_moves SET step = ? WHERE sandbox_id = ?"),
                     {back ? QStringLiteral("created") : QStringLiteral("switched"), sandboxId}, error, what);
    if (!ok || !handle.commit()) {
        handle.rollback();
        if (error.isEmpty())
            error = what.arg(QStringLiteral("the commit failed"));
        return false;
    }
    return true;
}

bool SandboxMoveRepository::markSourceLeft(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("UPDATE sandbox_moves SET step = 'source_left' WHERE sandbox_id = ?"), {sandboxId}, error,
                     QStringLiteral("cannot record that the move's source is left: %1"));
}

bool SandboxMoveRepository::end(const QString &sandboxId, QString &error)
{
    QSqlQuery q(m_db.handle());
    return execBound(q, QStringLiteral("DELETE FROM sandbox_moves WHERE sandbox_id = ?"), {sandboxId}, error,
                     QStringLiteral("cannot record the end of the move: %1"));
}

std::optional<SandboxMove> SandboxMoveRepository::find(const QString &sandboxId) const
{
    if (!m_db.isOpen())
        return std::nullopt;
    QSqlQuery q(m_db.handle());
    q.prepare(kMoveSelect + QStringLiteral(" WHERE sandbox_id = ?"));
    q.addBindValue(sandboxId);
    if (q.exec() && q.next())
        return moveFromRow(q);
    return std::nullopt;
}

QList<SandboxMove> SandboxMoveRepository::pending() const
{
    QList<SandboxMove> out;
    if (!m_db.isOpen())
        return out;
    QSqlQuery q(m_db.handle());
    q.prepare(kMoveSelect + QStringLiteral(" ORDER BY started_at, sandbox_id"));
    if (q.exec())
        while (q.next())
            out.append(moveFromRow(q));
    return out;
}

} // namespace chat2sbx
