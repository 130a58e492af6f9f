#include "state/WarmSandboxRepository.h"

#include "state/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kColumns[] = "runtime_name, sandbox_id, workspace_id, workspace_path, template_ref, state, created_at";

WarmRecord fromRow(const QSqlQuery &q)
{
    WarmRecord r;
    r.runtimeName = q.value(0).toString();
    r.sandboxId = q.value(1).toString();
    r.workspaceId = q.value(2).toString();
    r.workspacePath = q.value(3).toString();
    r.templateRef = q.value(4).toString();
    const QString state = q.value(5).toString();
    r.state = state == QLatin1String("ready") ? WarmState::Ready
              : state == QLatin1String("stale") ? WarmState::Stale
                                                : WarmState::Creating;
    r.createdAt = q.value(6).toLongLong();
    return r;
}

bool run(QSqlQuery &q, QString &error)
{
    if (q.exec())
        return true;
    error = QStringLiteral("database error: %1").arg(q.lastError().text().trimmed());
    return false;
}

} // namespace

QString warmStateName(WarmState state)
{
    switch (state) {
    case WarmState::Creating: return QStringLiteral("creating");
    case WarmState::Ready: return QStringLiteral("ready");
    case WarmState::Stale: return QStringLiteral("stale");
    }
    return {};
}

bool WarmSandboxRepository::insert(const WarmRecord &r, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO warm_sandboxes (%1) VALUES (?,?,?,?,?,?,?)").arg(QLatin1String(kColumns)));
    q.addBindValue(r.runtimeName);
    q.addBindValue(r.sandboxId);
    q.addBindValue(r.workspaceId);
    q.addBindValue(r.workspacePath);
    q.addBindValue(r.templateRef);
    q.addBindValue(warmStateName(r.state));
    q.addBindValue(r.createdAt);
    return run(q, error);
}

QList<WarmRecord> WarmSandboxRepository::list() const
{
    QList<WarmRecord> out;
    QSqlQuery q(m_db.handle());
    if (q.exec(QStringLiteral("SELECT %1 FROM warm_sandboxes ORDER BY created_at, runtime_name").arg(QLatin1String(kColumns))))
        while (q.next())
            out.append(fromRow(q));
    return out;
}

std::optional<WarmRecord> WarmSandboxRepository::find(const QString &runtimeName) const
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("SELECT %1 FROM warm_sandboxes WHERE runtime_name = ?").arg(QLatin1String(kColumns)));
    q.addBindValue(runtimeName);
    if (q.exec() && q.next())
        return fromRow(q);
    return std::nullopt;
}

bool WarmSandboxRepository::markReady(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE warm_sandboxes SET state = 'ready' WHERE runtime_name = ? AND state = 'creating'"));
    q.addBindValue(runtimeName);
    return run(q, error) && q.numRowsAffected() == 1;
}

bool WarmSandboxRepository::markAllStale(QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE warm_sandboxes SET state = 'stale'"));
    return run(q, error);
}

bool WarmSandboxRepository::markStale(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE warm_sandboxes SET state = 'stale' WHERE runtime_name = ?"));
    q.addBindValue(runtimeName);
    return run(q, error);
}

bool WarmSandboxRepository::takeReady(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM warm_sandboxes WHERE runtime_name = ? AND state = 'ready'"));
    q.addBindValue(runtimeName);
    return run(q, error) && q.numRowsAffected() == 1;
}

bool WarmSandboxRepository::remove(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM warm_sandboxes WHERE runtime_name = ?"));
    q.addBindValue(runtimeName);
    return run(q, error);
}

} // namespace chat2sbx
