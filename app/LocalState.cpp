#include "LocalState.h"

#include "core/Clock.h"

#include <QDir>
#include <QFile>

namespace chat2sbx::app {

LocalState::LocalState(const Config &config)
    : m_config(config), m_workspaces(config, m_db, Clock::system()), m_approvals(m_workspaces, m_db, Clock::system())
{
}

bool LocalState::open(QString &error)
{
    if (!QDir().mkpath(m_config.dataRoot)) {
        error = QStringLiteral("cannot create data root %1").arg(m_config.dataRoot);
        return false;
    }
    QFile::setPermissions(m_config.dataRoot, QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
    return m_db.open(m_config.databasePath, error);
}

namespace {
QJsonValue timeOrNull(qint64 ms)
{
    return ms ? QJsonValue(isoTime(ms)) : QJsonValue();
}
QJsonValue textOrNull(const QString &s)
{
    return s.isEmpty() ? QJsonValue() : QJsonValue(s);
}
} // namespace

QJsonObject approvalToJson(const Approval &a)
{
    return QJsonObject{
        {QStringLiteral("approval_id"), a.id},
        {QStringLiteral("state"), approvalStateName(a.state)},
        {QStringLiteral("host_path"), a.hostPath},
        {QStringLiteral("mode"), workspaceModeName(a.mode)},
        {QStringLiteral("display_name"), a.displayName},
        {QStringLiteral("requested_at"), isoTime(a.requestedAt)},
        {QStringLiteral("decided_at"), timeOrNull(a.decidedAt)},
        {QStringLiteral("decided_by"), textOrNull(a.decidedBy)},
        {QStringLiteral("workspace_id"), textOrNull(a.workspaceId)},
        {QStringLiteral("reason"), textOrNull(a.reason)},
        {QStringLiteral("client"), textOrNull(a.clientName)},
    };
}

} // namespace chat2sbx::app
