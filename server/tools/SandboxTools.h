#pragma once

#include <QJsonObject>

namespace chat2sbx {

struct Config;
class SandboxService;
class ToolRegistry;
struct SandboxView;

// sandbox_create, sandbox_get, sandbox_list, sandbox_destroy, sandbox_expose.
void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config);

// The summary every sandbox tool returns for one sandbox: public ids, states, times, the workspace
// path as seen inside the sandbox. Never the runtime name or a data-directory path.
QJsonObject sandboxSummary(const SandboxView &view, const SandboxService &sandboxes);

} // namespace chat2sbx
