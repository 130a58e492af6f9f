#include "sandbox/present/SandboxPresenter.h"

#include "config/Config.h"
#include "core/Clock.h"
#include "sandbox/lifecycle/Redaction.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/ports/ExposedPort.h"
#include "sandbox/present/SandboxSleepJson.h"
#include "sandbox/sbx/SbxCloud.h"
#include "state/SandboxRepository.h"
#include "workspace/WorkspaceService.h"

#include <QJsonArray>

namespace chat2sbx {

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
        {QStringLiteral("placement"), r.placement},
    };
    if (r.isCloud()) {
        // Billed while it runs; its work lives in the VM in the cloud, not on this computer.
        const std::optional<SbxCloudSize> size = sbxCloudSize(r.cloudSize);
        if (size)
            o.insert(QStringLiteral("memory"), QStringLiteral("%1 GiB").arg(size->memoryMib / 1024));
        QJsonObject cloud{{QStringLiteral("size"), size ? size->name : r.cloudSize},
                          {QStringLiteral("cpus"), size ? size->cpus : 0},
                          {QStringLiteral("work_lives"), QStringLiteral("in the VM in Docker's cloud (no folder of this computer)")}};
        if (view.workspace && view.workspace->mode == WorkspaceMode::Clone)
            cloud.insert(QStringLiteral("work_lives"),
                         QStringLiteral("in the VM in Docker's cloud: ~/workspace is a clone of the approved repository at the "
                                        "commit checked out when the sandbox was made (uncommitted changes of this computer "
                                        "are not in it); export_changes brings its work home as branch chat2sbx/%1")
                             .arg(r.id));
        if (r.expiresAt > 0 && (r.state == SandboxState::Running || r.state == SandboxState::Creating))
            cloud.insert(QStringLiteral("expires_at"), isoTime(r.expiresAt));
        if (r.expiresCeilingAt > 0)
            cloud.insert(QStringLiteral("expires_at_latest"), isoTime(r.expiresCeilingAt));
        cloud.insert(QStringLiteral("at_end"),
                     sandboxes.cloudExpiryDeletes()
                         ? QStringLiteral("deleted with its files: this Docker account cannot stop cloud sandboxes. It is extended "
                                          "while in use; copy out what matters before a pause of more than its time-to-live")
                         : QStringLiteral("stopped, its files kept (the next tool call starts it again)"));
        o.insert(QStringLiteral("cloud"), cloud);
    }
    if (view.workspace && r.hasVmWorkspace()) {
        o.insert(QStringLiteral("workspace_mode"), workspaceModeName(view.workspace->mode));
        o.insert(QStringLiteral("workspace_path"), QStringLiteral("~/workspace"));
        if (!r.isCloud())
            o.insert(QStringLiteral("work_lives"),
                     QStringLiteral("in the VM on this computer: it came back from Docker's cloud, and a moved sandbox has no "
                                    "folder of this computer; export_changes or download_file bring work out"));
    } else if (view.workspace) {
        o.insert(QStringLiteral("workspace_mode"), workspaceModeName(view.workspace->mode));
        o.insert(QStringLiteral("workspace_path"), view.workspace->pathInSandbox());
        if (audience == Audience::LocalUser)
            o.insert(QStringLiteral("workspace_host_path"), view.workspace->hostPath);
    }
    if (r.state == SandboxState::Running && r.idleDeadline > 0)
        o.insert(QStringLiteral("idle_deadline"), isoTime(r.idleDeadline));
    if (!r.reason.isEmpty())
        o.insert(QStringLiteral("failure_reason"), sandboxes.publicText(r.reason));
    if (r.isUnreachable())
        o.insert(QStringLiteral("unreachable"), QJsonObject{{QStringLiteral("since"), isoTime(r.unreachableSince)},
                                                            {QStringLiteral("listings_missed"), r.unreachableLists},
                                                            {QStringLiteral("why"), sandboxes.publicText(r.unreachableWhy)}});
    QJsonArray ports;
    for (const SandboxPortRecord &p : view.ports)
        ports.append(portJson(presentPort(p.sandboxPort, p.hostIp, p.hostPort)));
    o.insert(QStringLiteral("ports"), ports);
    if (!view.forkedFromSandbox.isEmpty())
        o.insert(QStringLiteral("forked_from"), QJsonObject{{QStringLiteral("sandbox_id"), view.forkedFromSandbox},
                                                            {QStringLiteral("checkpoint_id"), view.forkedFromCheckpoint}});
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
