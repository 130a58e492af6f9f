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
        {QStringLiteral("kind"), QStringLiteral("folder")},
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

QJsonObject exportRequestToJson(const ExportRequest &r)
{
    return QJsonObject{
        {QStringLiteral("kind"), QStringLiteral("export")},
        {QStringLiteral("approval_id"), r.id},
        {QStringLiteral("state"), exportRequestStateName(r.state)},
        {QStringLiteral("sandbox_id"), r.sandboxId},
        {QStringLiteral("path"), r.shown},
        {QStringLiteral("file_name"), r.fileName()},
        {QStringLiteral("size"), static_cast<double>(r.size)},
        {QStringLiteral("folder"), r.folder},
        {QStringLiteral("why"), r.why},
        {QStringLiteral("requested_at"), isoTime(r.requestedAt)},
        {QStringLiteral("decided_at"), timeOrNull(r.decidedAt)},
        {QStringLiteral("decided_by"), textOrNull(r.decidedBy)},
        {QStringLiteral("client"), textOrNull(r.clientName)},
    };
}

} // namespace chat2sbx::app
