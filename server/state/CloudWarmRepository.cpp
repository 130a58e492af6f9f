#include "state/CloudWarmRepository.h"

#include "state/Database.h"

#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

namespace chat2sbx {
namespace {

const char kCloudWarmColumns[] = "runtime_name, sandbox_id, workspace_id, workspace_path, size, state, created_at, expires_at";

CloudWarmRecord cloudWarmFromRow(const QSqlQuery &q)
{
    CloudWarmRecord r;
    r.runtimeName = q.value(0).toString();
    r.sandboxId = q.value(1).toString();
    r.workspaceId = q.value(2).toString();
    r.workspacePath = q.value(3).toString();
    r.size = q.value(4).toString();
    r.ready = q.value(5).toString() == QLatin1String("ready");
    r.createdAt = q.value(6).toLongLong();
    r.expiresAt = q.value(7).toLongLong();
    return r;
}

bool execOrSay(QSqlQuery &q, QString &error)
{
    if (q.exec())
        return true;
    error = QStringLiteral("database error: %1").arg(q.lastError().text().trimmed());
    return false;
}

} // namespace

bool CloudWarmRepository::insert(const CloudWarmRecord &r, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("INSERT INTO cloud_warm_sandboxes (%1) VALUES (?,?,?,?,?,?,?,?)").arg(QLatin1String(kCloudWarmColumns)));
    q.addBindValue(r.runtimeName);
    q.addBindValue(r.sandboxId);
    q.addBindValue(r.workspaceId);
    q.addBindValue(r.workspacePath);
    q.addBindValue(r.size);
    q.addBindValue(r.ready ? QStringLiteral("ready") : QStringLiteral("creating"));
    q.addBindValue(r.createdAt);
    q.addBindValue(r.expiresAt);
    return execOrSay(q, error);
}

QList<CloudWarmRecord> CloudWarmRepository::list() const
{
    QList<CloudWarmRecord> out;
    QSqlQuery q(m_db.handle());
    if (q.exec(QStringLiteral("SELECT %1 FROM cloud_warm_sandboxes ORDER BY created_at, runtime_name").arg(QLatin1String(kCloudWarmColumns))))
        while (q.next())
            out.append(cloudWarmFromRow(q));
    return out;
}

bool CloudWarmRepository::markReady(const QString &runtimeName, qint64 expiresAt, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("UPDATE cloud_warm_sandboxes SET state = 'ready', expires_at = ? WHERE runtime_name = ? AND state = 'creating'"));
    q.addBindValue(expiresAt);
    q.addBindValue(runtimeName);
    return execOrSay(q, error) && q.numRowsAffected() == 1;
}

bool CloudWarmRepository::takeReady(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM cloud_warm_sandboxes WHERE runtime_name = ? AND state = 'ready'"));
    q.addBindValue(runtimeName);
    return execOrSay(q, error) && q.numRowsAffected() == 1;
}

bool CloudWarmRepository::remove(const QString &runtimeName, QString &error)
{
    QSqlQuery q(m_db.handle());
    q.prepare(QStringLiteral("DELETE FROM cloud_warm_sandboxes WHERE runtime_name = ?"));
    q.addBindValue(runtimeName);
    return execOrSay(q, error);
}

} // namespace chat2sbx
