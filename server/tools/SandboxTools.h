#pragma once

#include <QJsonObject>

namespace chat2sbx {

struct Config;
class ChannelPool;
class SandboxService;
class ToolRegistry;
struct SandboxView;

// sandbox_create, sandbox_get, sandbox_list, sandbox_destroy, sandbox_expose.
// With `channels`, sandbox_expose also reports whether something listens on the port inside the
// sandbox (null without).
void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config,
                          ChannelPool *channels = nullptr);

// One exposed port as every result shows it: sandbox_port, host_ip, host_port, url, lan_wide.
QJsonObject portJson(int sandboxPort, const QString &hostIp, int hostPort);

// The summary every sandbox tool returns for one sandbox: public ids, states, times, the workspace
// path as seen inside the sandbox. Never the runtime name or a data-directory path.
QJsonObject sandboxSummary(const SandboxView &view, const SandboxService &sandboxes);

} // namespace chat2sbx
