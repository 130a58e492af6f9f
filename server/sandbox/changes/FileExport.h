#pragma once

#include "sandbox/channel/SandboxResolver.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>

namespace chat2sbx {

class ChannelPool;

struct FileExportOptions {
    QString dir;                              // Config::exportDir
    qint64 maxFileBytes = 512LL << 20;        // one file (a folder: its .tar.gz)
    qint64 maxSandboxBytes = 2048LL << 20;    // everything one sandbox exports through this object
};

// A file (or a folder, packed in the VM as a .tar.gz) of a running sandbox copied to the user's
// export folder on this computer: read from the VM a part at a time (the helper's export_* ops) into
// a staged file (HostExportFile) that is named only when complete, within the budgets. Used by the
// export_file tool and `chat2sbx sandbox export`.
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
    };
    using Done = std::function<void(const Outcome &)>;

    FileExport(ChannelPool &channels, FileExportOptions options, QObject *parent = nullptr);
    const FileExportOptions &options() const { return m_options; }

    // `path` as the agent wrote it; `shown` as results show it (its last part names the file).
    // `done` runs once, later. Returns a function that stops the copy (the staged file goes).
    std::function<void()> start(const RunningSandbox &sandbox, const QString &path, const QString &shown, Done done);

signals:
    void exported(const QString &sandboxId, const QString &hostPath);

private:
    friend struct FileExportJob;
    ChannelPool &m_channels;
    FileExportOptions m_options;
    std::shared_ptr<QHash<QString, qint64>> m_exportedBySandbox = std::make_shared<QHash<QString, qint64>>();
};

} // namespace chat2sbx
