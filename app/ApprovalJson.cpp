#include "ApprovalJson.h"

#include "core/Clock.h"

namespace chat2sbx::app {

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
