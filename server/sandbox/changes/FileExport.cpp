#include "sandbox/changes/FileExport.h"

#include "core/Ids.h"
#include "sandbox/changes/ExportApprovals.h"
#include "sandbox/changes/HostExportFile.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"

#include <QPointer>

namespace chat2sbx {

namespace {
constexpr qint64 kExportPartBytes = 4 * 1024 * 1024;   // its base64 answer stays far below the channel's line cap
constexpr int kExportPartTimeoutMs = 60000;
constexpr int kExportPackTimeoutMs = 300000;
// With exportOverBudget "ask" a folder may pass the budget once the user approves: its pack still
// ends here.
constexpr qint64 kPackHardCapBytes = qint64(4) << 30;

QString exportMib(qint64 bytes)
{
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f', 1) + QStringLiteral(" MiB");
}

QString channelFailure(const ChannelReply &r)
{
    return r.channelFailure ? QStringLiteral("could not reach the sandbox: %1").arg(r.error) : r.error;
}
} // namespace

// One export: the parts read from the VM go straight into the staged host file.
struct FileExportJob {
    QPointer<FileExport> owner;
    FileExportOptions options;
    QPointer<ExportApprovals> approvals;
    QString agentPath;    // as the agent wrote it: the key of a request that waits
    QString clientName;
    std::shared_ptr<QHash<QString, qint64>> budget;
    QPointer<SandboxChannel> channel;
    FileExport::Done done;
    QString sandboxId;
    QString shown;
    QString readPath;     // what the parts are read from: the file, or the folder's .tar.gz
    QString packToken;    // set for a folder: its .tar.gz is dropped in the VM at the end
    bool folder = false;
    bool stopped = false;
    quint64 packRequest = 0;   // the export_pack under way (cancelled with the export)
    qint64 size = 0;
    qint64 offset = 0;
    bool reserved = false;
    HostExportFile file;

    ~FileExportJob()
    {
        if (reserved)
            (*budget)[sandboxId] -= size;
        if (!packToken.isEmpty() && channel)
            channel->request(QStringLiteral("export_drop"), {packToken.toLatin1()}, kExportPartTimeoutMs, [](const ChannelReply &) {});
    }
    void fail(const QString &why)
    {
        if (!done)
            return;
        FileExport::Outcome o;
        o.error = why;
        std::exchange(done, nullptr)(o);
    }
};

namespace {

void readNextExportPart(const std::shared_ptr<FileExportJob> &job);

void finishExport(const std::shared_ptr<FileExportJob> &job)
{
    FileExport::Outcome o;
    QString error;
    if (!job->file.commit(o.hostPath, error))
        return job->fail(error);
    job->reserved = false;   // spent: it stays counted against the sandbox's budget
    o.ok = true;
    o.size = job->file.written();
    o.sha256 = job->file.sha256();
    o.packed = job->folder;
    if (job->owner)
        emit job->owner->exported(job->sandboxId, o.hostPath);
    if (job->done)
        std::exchange(job->done, nullptr)(o);
}

void readNextExportPart(const std::shared_ptr<FileExportJob> &job)
{
    if (job->stopped)
        return job->fail(QStringLiteral("cancelled"));
    if (job->offset >= job->size)
        return finishExport(job);
    if (!job->channel)
        return job->fail(QStringLiteral("the sandbox was detached during the export"));
    const qint64 length = qMin(kExportPartBytes, job->size - job->offset);
    job->channel->request(
        QStringLiteral("export_part"), {job->readPath.toUtf8(), QByteArray::number(job->offset), QByteArray::number(length)},
        kExportPartTimeoutMs, [job, length](const ChannelReply &r) {
            if (!r.ok)
                return job->fail(channelFailure(r));
            if (r.data.size() != length)
                return job->fail(QStringLiteral("%1 changed while it was copied (it is now %2 bytes); copy it again once it is "
                                                "finished").arg(job->shown, r.meta.value(QStringLiteral("size"))));
            QString error;
            if (!job->file.write(r.data, error))
                return job->fail(error);
            job->offset += length;
            readNextExportPart(job);
        });
}

// True when the copy may go on; otherwise the outcome was given: it waits for the user, or failed.
bool exportMayGo(const std::shared_ptr<FileExportJob> &job, qint64 size)
{
    const FileExportOptions &o = job->options;
    const qint64 used = job->budget->value(job->sandboxId);
    QString overBudget;
    if (size > o.maxFileBytes)
        overBudget = QStringLiteral("%1 is %2, over the %3 a file may have (exportMaxFileMiB in config.json)")
                         .arg(job->shown, exportMib(size), exportMib(o.maxFileBytes));
    else if (used + size > o.maxSandboxBytes)
        overBudget = QStringLiteral("this sandbox has exported %1 already; %2 more would pass its %3 budget "
                                    "(exportMaxSandboxMiB in config.json)")
                         .arg(exportMib(used), exportMib(size), exportMib(o.maxSandboxBytes));
    const bool ask = job->approvals && (overBudget.isEmpty() ? o.needsApproval : o.askOverBudget);
    if (!ask) {
        if (!overBudget.isEmpty())
            job->fail(overBudget);
        return overBudget.isEmpty();
    }
    ExportRequest asked;
    asked.sandboxId = job->sandboxId;
    asked.path = job->agentPath;
    asked.shown = job->shown;
    asked.size = size;
    asked.folder = job->folder;
    asked.why = overBudget.isEmpty() ? QStringLiteral("every export waits for approval (exportNeedsApproval in "
                                                      "config.json)")
                                     : overBudget;
    asked.clientName = job->clientName;
    const ExportApprovals::Gate gate = job->approvals->pass(asked);
    switch (gate.status) {
    case ExportApprovals::Gate::Status::Go:
        return true;
    case ExportApprovals::Gate::Status::Refused:
        job->fail(gate.reason);
        return false;
    case ExportApprovals::Gate::Status::Rejected:
        job->fail(QStringLiteral("the user declined to save %1 on their computer (export request %2); do not ask again "
                                 "unless the user says so").arg(job->shown, gate.request.id));
        return false;
    case ExportApprovals::Gate::Status::Waiting:
        break;
    }
    FileExport::Outcome waiting;
    waiting.waiting = true;
    waiting.request = gate.request;
    waiting.size = size;
    waiting.packed = job->folder;
    if (job->done)
        std::exchange(job->done, nullptr)(waiting);
    return false;
}

void startExportCopy(const std::shared_ptr<FileExportJob> &job, qint64 size)
{
    if (!exportMayGo(job, size))
        return;
    (*job->budget)[job->sandboxId] += size;
    job->size = size;
    job->reserved = true;
    QString error;
    if (!job->file.open(job->options.dir, HostExportFile::safeName(job->shown, job->folder), error))
        return job->fail(error);
    readNextExportPart(job);
}

} // namespace

FileExport::FileExport(ChannelPool &channels, FileExportOptions options, ExportApprovals *approvals, QObject *parent)
    : QObject(parent), m_channels(channels), m_options(std::move(options)), m_approvals(approvals)
{
}

std::function<void()> FileExport::start(const RunningSandbox &sandbox, const QString &path, const QString &shown, Done done,
                                        const QString &clientName)
{
    auto job = std::make_shared<FileExportJob>();
    job->owner = this;
    job->options = m_options;
    job->approvals = m_approvals;
    job->agentPath = path;
    job->clientName = clientName;
    job->budget = m_exportedBySandbox;
    job->channel = &m_channels.channelFor(sandbox);
    job->done = std::move(done);
    job->sandboxId = sandbox.sandboxId;
    job->shown = shown;
    job->readPath = path;
    job->channel->request(QStringLiteral("export_stat"), {path.toUtf8()}, kExportPartTimeoutMs, [job](const ChannelReply &r) {
        if (!r.ok)
            return job->fail(channelFailure(r));
        if (r.meta.value(QStringLiteral("type")) == QLatin1String("file"))
            return startExportCopy(job, r.meta.value(QStringLiteral("size")).toLongLong());
        if (!job->channel)
            return job->fail(QStringLiteral("the sandbox was detached during the export"));
        // A folder: packed in the VM first, then copied like a file.
        job->folder = true;
        job->packToken = randomHex(12);   // the helper takes [a-z0-9]{8,40}
        // The pack is bounded in the VM: past the most the export could ever copy it ends, with no
        // more packed than that (a pack of `/` or `/usr` must not fill the VM's disk).
        const qint64 cap = job->options.askOverBudget ? qMax(job->options.maxFileBytes, kPackHardCapBytes) : job->options.maxFileBytes;
        job->packRequest = job->channel->request(
            QStringLiteral("export_pack"), {job->readPath.toUtf8(), job->packToken.toLatin1(), QByteArray::number(cap)},
            kExportPackTimeoutMs, [job, cap](const ChannelReply &packed) {
                                  job->packRequest = 0;
                                  if (packed.code == QLatin1String("efbig"))
                                      return job->fail(QStringLiteral("%1 packs to more than %2, the most one export may copy "
                                                                      "(exportMaxFileMiB in config.json), so packing it was stopped: "
                                                                      "export a smaller folder, or single files").arg(job->shown, exportMib(cap)));
                                  if (!packed.ok)
                                      return job->fail(channelFailure(packed));
                                  job->readPath = packed.meta.value(QStringLiteral("path"));
                                  startExportCopy(job, packed.meta.value(QStringLiteral("size")).toLongLong());
                              });
    });
    return [weak = std::weak_ptr<FileExportJob>(job)] {
        auto j = weak.lock();
        if (!j)
            return;
        j->stopped = true;   // the next part stops it; the staged file goes with the job
        if (j->packRequest && j->channel) {
            j->channel->cancel(std::exchange(j->packRequest, 0));   // the pack in the VM ends now
            // and what it wrote goes (the handler was killed: it cannot remove it itself)
            j->channel->request(QStringLiteral("export_drop"), {std::exchange(j->packToken, QString()).toLatin1()},
                                kExportPartTimeoutMs, [](const ChannelReply &) {});
        }
    };
}

} // namespace chat2sbx
