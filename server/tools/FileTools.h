#pragma once

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

// read, write, edit, search, list, apply_patch, view_image: files in a sandbox, through its control
// channel.
void registerFileTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);

// The family's tools, one file each (<Name>Tool.cpp: definition and handler).
void addReadTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
void addWriteTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
void addEditTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
void addSearchTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
void addListTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
// A multi-file patch (unified diff or "*** Begin Patch" envelope) applied all or nothing.
void addApplyPatchTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);
// An image file returned as MCP image content, scaled down when large.
void addViewImageTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels);

} // namespace chat2sbx
