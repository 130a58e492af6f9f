#include "sandbox/SandboxPresenter.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/ExposedPort.h"
#include "sandbox/SandboxService.h"
#include "sandbox/SandboxSleepJson.h"
#include "state/SandboxRepository.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>

namespace chat2sbx {

QString dataDirPlaceholder()
{
    return QStringLiteral("<chat2sbx data directory>");
}

QString redactDataPaths(const QString &text, const Config &config)
{
    QString t = text;
    if (!config.workspaceRoot.isEmpty()) {
        const QRegularExpression wsRe(QRegularExpression::escape(config.workspaceRoot) + QStringLiteral("/ws_[0-9a-f]{24}"));
        t.replace(wsRe, QStringLiteral("~/workspace"));
    }
    // Longest first: the workspace and state folders lie inside the data root.
    QStringList roots{config.workspaceRoot, config.stateDir, config.dataRoot};
    roots.removeAll(QString());
    std::sort(roots.begin(), roots.end(), [](const QString &a, const QString &b) { return a.size() > b.size(); });
    for (const QString &root : roots)
        t.replace(root, dataDirPlaceholder());
    return t;
}

QString redactForAgent(const QString &text, const Config &config, const std::function<QList<SandboxRecord>()> &known)
{
    QString t = text;
    static const QRegularExpression runtimeRe(QStringLiteral("chat2sbx-[0-9a-f]{16}"));
    if (t.contains(runtimeRe)) {
        for (const SandboxRecord &r : known())
            if (!r.runtimeName.isEmpty())
                t.replace(r.runtimeName, r.id);
        t.replace(runtimeRe, QStringLiteral("<sandbox>"));
    }
    return redactDataPaths(t, config);
}

PortView presentPort(int sandboxPort, const QString &hostIp, int hostPort)
{
    return {sandboxPort, hostIp, hostPort, exposedPortUrl(hostIp, hostPort), isLanWide(hostIp)};
}

QJsonObject portJson(const PortView &port)
{
    return {{QStringLiteral("sandbox_port"), port.sandboxPort},
            {QStringLiteral("host_ip"), port.hostIp},
            {QStringLiteral("host_port"), port.hostPort},
            {QStringLiteral("url"), port.url},
            {QStringLiteral("lan_wide"), port.lanWide}};
}

QString memoryText(const QString &memory)
{
    return memory.isEmpty() ? QStringLiteral("default") : memory;
}

QJsonObject sandboxJson(const SandboxView &view, const SandboxService &sandboxes, Audience audience)
{
    const SandboxRecord &r = view.record;
    QJsonObject o{
        {QStringLiteral("sandbox_id"), r.id},
        {QStringLiteral("workspace_id"), r.workspaceId},
        {QStringLiteral("state"), sandboxStateName(r.state)},
        {QStringLiteral("memory"), memoryText(r.memory)},
        {QStringLiteral("created_at"), isoTime(r.createdAt)},
    };
    if (view.workspace) {
        o.insert(QStringLiteral("workspace_mode"), workspaceModeName(view.workspace->mode));
        o.insert(QStringLiteral("workspace_path"), view.workspace->pathInSandbox());
        if (audience == Audience::LocalUser)
            o.insert(QStringLiteral("workspace_host_path"), view.workspace->hostPath);
    }
    if (r.state == SandboxState::Running && r.idleDeadline > 0)
        o.insert(QStringLiteral("idle_deadline"), isoTime(r.idleDeadline));
    if (!r.reason.isEmpty())
        o.insert(QStringLiteral("failure_reason"), sandboxes.publicText(r.reason));
    QJsonArray ports;
    for (const SandboxPortRecord &p : view.ports)
        ports.append(portJson(presentPort(p.sandboxPort, p.hostIp, p.hostPort)));
    o.insert(QStringLiteral("ports"), ports);
    insertSleepFields(o, view);
    return o;
}

QJsonObject workspaceJson(const WorkspaceOverview &overview, Audience audience)
{
    const Workspace &w = overview.workspace;
    QJsonObject j{
        {QStringLiteral("workspace_id"), w.id},
        {QStringLiteral("mode"), workspaceModeName(w.mode)},
        {QStringLiteral("display_name"), w.displayName},
        {QStringLiteral("path_in_sandbox"), w.pathInSandbox()},
        {QStringLiteral("sandbox_id"), overview.activeSandboxId.isEmpty() ? QJsonValue() : QJsonValue(overview.activeSandboxId)},
        {QStringLiteral("last_used_at"), isoTime(w.lastUsedAt)},
    };
    // Managed workspaces live in the data directory, which agents never see.
    if (!w.isManaged() || audience == Audience::LocalUser)
        j.insert(QStringLiteral("host_path"), w.hostPath);
    if (w.isManaged())
        j.insert(QStringLiteral("retention_deadline"),
                 overview.retentionDeadline ? QJsonValue(isoTime(overview.retentionDeadline)) : QJsonValue());
    if (audience == Audience::LocalUser)
        j.insert(QStringLiteral("created_at"), isoTime(w.createdAt));
    return j;
}

QJsonValue sandboxLimitJson(int maxActiveSandboxes)
{
    return maxActiveSandboxes > 0 ? QJsonValue(maxActiveSandboxes) : QJsonValue(sandboxLimitText(maxActiveSandboxes));
}

QString sandboxLimitText(int maxActiveSandboxes)
{
    return maxActiveSandboxes > 0 ? QString::number(maxActiveSandboxes) : QStringLiteral("unlimited");
}

} // namespace chat2sbx
