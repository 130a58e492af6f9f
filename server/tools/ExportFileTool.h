#pragma once

namespace chat2sbx {

class ChannelPool;
class FileExport;
class SandboxResolver;
class ToolRegistry;

// export_file: a file (or a folder, as a .tar.gz) from the sandbox to the user's export folder on
// this computer, through FileExport (sandbox/changes), which `chat2sbx sandbox export` uses too.
void registerExportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels, FileExport &exports);

} // namespace chat2sbx
