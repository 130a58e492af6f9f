#pragma once

#include "sandbox/channel/SandboxResolver.h"
#include "state/ExportRequest.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace chat2sbx {

class ChannelPool;
class ExportApprovals;

struct FileExportOptions {
    QString dir;                              // Config::exportDir
    qint64 maxFileBytes = 512LL << 20;        // one file (a folder: its .tar.gz)
    qint64 maxSandboxBytes = 2048LL << 20;    // everything one sandbox exports through this object
    bool needsApproval = false;               // Config::exportNeedsApproval: every export waits for the user
    bool askOverBudget = true;                // Config::exportOverBudget "ask": over a budget waits, not refused
};

// A file (or a folder, packed in the VM as a .tar.gz) of a running sandbox copied to the user's
// export folder on this computer: read from the VM a part at a time (the helper's export_* ops) into
// a staged file (HostExportFile) that is named only when complete, within the budgets. Used by the
// export_file tool and `chat2sbx sandbox export`. With ExportApprovals (the server's), an export the
// options make wait is not copied until the user approved it: the outcome says it waits.
class FileExport : public QObject {
    Q_OBJECT
public:
    struct Outcome {
        bool ok = false;
        QString error;       // one readable sentence (nothing was written)
        QString hostPath;
        qint64 size = 0;
        QString sha256;
        bool packed = false;  // a folder, as a .tar.gz
        bool waiting = false;  // nothing copied: `request` waits for the user's approval
        ExportRequest request;
    };
    using Done = std::function<void(const Outcome &)>;

    // `approvals` may be null (the CLI: the user at the terminal decides by running it).
    FileExport(ChannelPool &channels, FileExportOptions options, ExportApprovals *approvals = nullptr,
               QObject *parent = nullptr);
    const FileExportOptions &options() const { return m_options; }

    // `path` as the agent wrote it; `shown` as results show it (its last part names the file).
    // `done` runs once, later. Returns a function that stops the copy (the staged file goes).
    // `clientName`: the MCP client that asked, shown with a request that waits.
    std::function<void()> start(const RunningSandbox &sandbox, const QString &path, const QString &shown, Done done,
                                const QString &clientName = {});

signals:
    void exported(const QString &sandboxId, const QString &hostPath);

private:
    friend struct FileExportJob;
    ChannelPool &m_channels;
    FileExportOptions m_options;
    ExportApprovals *m_approvals;
    std::shared_ptr<QHash<QString, qint64>> m_exportedBySandbox = std::make_shared<QHash<QString, qint64>>();
};

} // namespace chat2sbx
