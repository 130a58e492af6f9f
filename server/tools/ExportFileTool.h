#pragma once

#include <QObject>
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

// The files export_file put on this computer, as they land (the tray tells the user).
class ExportedFiles : public QObject {
    Q_OBJECT
signals:
    void exported(const QString &sandboxId, const QString &hostPath);
};

// export_file: a file (or a folder, as a .tar.gz) from the sandbox to the user's export folder on
// this computer (HostExportFile), read a part at a time, within the budgets. `events` (may be null)
// hears of every file that landed.
void registerExportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            const ExportFileOptions &options, ExportedFiles *events = nullptr);

} // namespace chat2sbx
