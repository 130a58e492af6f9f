#pragma once

namespace chat2sbx {

struct Config;
class ChannelPool;
class SandboxService;
class ToolRegistry;

// sandbox_create, sandbox_get, sandbox_list, sandbox_destroy, sandbox_expose.
// With `channels`, sandbox_expose also reports whether something listens on the port inside the
// sandbox (null without).
void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config,
                          ChannelPool *channels = nullptr);

} // namespace chat2sbx
