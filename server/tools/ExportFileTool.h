#pragma once

#include <QString>

namespace chat2sbx {

class ChannelPool;
class SandboxResolver;
class ToolRegistry;

struct ExportFileOptions {
    QString dir;                         // Config::exportDir
    qint64 maxFileBytes = 512LL << 20;   // one file (a folder: its .tar.gz)
    qint64 maxSandboxBytes = 2048LL << 20;   // everything one sandbox exports while the server runs
};

// export_file: a file (or a folder, as a .tar.gz) from the sandbox to the user's export folder on
// this computer (HostExportFile), read a part at a time, within the budgets.
void registerExportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            const ExportFileOptions &options);

} // namespace chat2sbx
