#pragma once

#include "sandbox/lifecycle/Redaction.h"

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>

#include <functional>

namespace chat2sbx {

struct Config;
struct SandboxRecord;
struct SandboxView;
struct WorkspaceOverview;
class SandboxService;

// How a sandbox, a workspace and an exposed port are shown outside the server: in tool results,
// in the CLI's --json output and in the tray. Field names are the same for every reader.

// Who reads it. An agent never sees a host data-directory path; the local user (CLI, tray) sees
// the host folders of their own workspaces.
enum class Audience { Agent, LocalUser };

// One exposed port: sandbox_port, host_ip, host_port, url (what to open on the host), lan_wide.
struct PortView {
    int sandboxPort = 0;
    QString hostIp;
    int hostPort = 0;
    QString url;
    bool lanWide = false;
};
PortView presentPort(int sandboxPort, const QString &hostIp, int hostPort);
QJsonObject portJson(const PortView &port);

// One sandbox: ids, state, memory ("default" when none was asked), times, workspace mode and path
// inside the sandbox, failure reason (redacted), ports. LocalUser adds workspace_host_path.
QJsonObject sandboxJson(const SandboxView &view, const SandboxService &sandboxes, Audience audience = Audience::Agent);
// "default" when no memory size was asked for.
QString memoryText(const QString &memory);

// One workspace: workspace_id, mode, display_name, path_in_sandbox, sandbox_id (or null),
// last_used_at; host_path for clone and direct workspaces; retention_deadline (or null) for managed
// ones. LocalUser adds host_path for managed workspaces too, and created_at.
QJsonObject workspaceJson(const WorkspaceOverview &overview, Audience audience = Audience::Agent);

// maxActiveSandboxes as shown: the number, or "unlimited" for 0.
QJsonValue sandboxLimitJson(int maxActiveSandboxes);
QString sandboxLimitText(int maxActiveSandboxes);

} // namespace chat2sbx
