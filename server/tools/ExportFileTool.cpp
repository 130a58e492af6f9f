#include "tools/ExportFileTool.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/HostExportFile.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QHash>
#include <QPointer>
#include <QRandomGenerator>

#include <memory>

namespace chat2sbx {
namespace {

constexpr qint64 kExportPartBytes = 4 * 1024 * 1024;   // its base64 answer stays far below the channel's line cap
constexpr int kExportPartTimeoutMs = 60000;
constexpr int kExportPackTimeoutMs = 300000;

struct Exporter {
    ExportFileOptions options;
    QPointer<ExportedFiles> events;
    QHash<QString, qint64> exportedBySandbox;   // bytes exported (or being exported) per sandbox
};

// One export: the parts read from the VM go straight into the staged host file.
struct ExportJob {
    std::shared_ptr<Exporter> exporter;
    QPointer<SandboxChannel> channel;
    ToolResponder responder;
    QString sandboxId;
    QString shown;        // the sandbox path as results show it
    QString readPath;     // what the parts are read from: the file, or the folder's .tar.gz
    QString packToken;    // set for a folder: its .tar.gz is dropped in the VM at the end
    bool folder = false;
    qint64 size = 0;
    qint64 offset = 0;
    bool reserved = false;
    HostExportFile file;

    ~ExportJob()
    {
        if (reserved)
            exporter->exportedBySandbox[sandboxId] -= size;
        if (!packToken.isEmpty() && channel)
            channel->request(QStringLiteral("export_drop"), {packToken.toLatin1()}, kExportPartTimeoutMs, [](const ChannelReply &) {});
    }
    void fail(const QString &why) { responder.error(why + QStringLiteral("; nothing was written on this computer")); }
};

QString exportMib(qint64 bytes)
{
    return QString::number(static_cast<double>(bytes) / (1024.0 * 1024.0), 'f', 1) + QStringLiteral(" MiB");
}

ToolDefinition exportFileDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("export_file");
    d.title = QStringLiteral("Give a file to the user");
    d.description = QStringLiteral(
        "Use to hand the user a file made in the sandbox (a report, an image, a build): copies it (a folder as a .tar.gz) "
        "into the user's export folder on their computer, never over another file, and returns where it landed. ChatGPT "
        "cannot offer sandbox files for download: this is how they reach the user.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()}, {QStringLiteral("path"), sandboxPathProperty()}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("host_path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("file_name"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("size"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("packed"), schema::typed(QStringLiteral("boolean"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::OpenWorld);
    d.presentation.invoking = QStringLiteral("Copying the file to the user's computer…");
    d.presentation.invoked = QStringLiteral("Copied the file to the user's computer");
    d.presentation.cardView = ToolCardView::File;
    return d;
}

void readNextExportPart(const std::shared_ptr<ExportJob> &job);

void finishExport(const std::shared_ptr<ExportJob> &job)
{
    QString hostPath, error;
    if (!job->file.commit(hostPath, error))
        return job->fail(error);
    job->reserved = false;   // spent: it stays counted against the sandbox's budget
    const QString name = hostPath.section(QLatin1Char('/'), -1);
    QJsonObject out{{QStringLiteral("path"), job->shown},
                    {QStringLiteral("host_path"), hostPath},
                    {QStringLiteral("file_name"), name},
                    {QStringLiteral("size"), static_cast<double>(job->file.written())},
                    {QStringLiteral("sha256"), job->file.sha256()},
                    {QStringLiteral("packed"), job->folder}};
    out.insert(QStringLiteral("message"), QStringLiteral("The user finds %1 in %2 on their computer.").arg(name, job->exporter->options.dir));
    job->responder.ok(out);
    if (job->exporter->events)
        emit job->exporter->events->exported(job->sandboxId, hostPath);
}

void readNextExportPart(const std::shared_ptr<ExportJob> &job)
{
    if (job->offset >= job->size)
        return finishExport(job);
    if (!job->channel)
        return job->fail(QStringLiteral("the sandbox was detached during the export"));
    const qint64 length = qMin(kExportPartBytes, job->size - job->offset);
    job->channel->request(
        QStringLiteral("export_part"),
        {job->readPath.toUtf8(), QByteArray::number(job->offset), QByteArray::number(length)}, kExportPartTimeoutMs,
        [job, length](const ChannelReply &r) {
            if (!r.ok)
                return job->fail(replyFailure(r));
            if (r.data.size() != length)
                return job->fail(QStringLiteral("%1 changed while it was copied (it is now %2 bytes); copy it again once it is "
                                                "finished").arg(job->shown).arg(r.meta.value(QStringLiteral("size"))));
            QString error;
            if (!job->file.write(r.data, error))
                return job->fail(error);
            job->offset += length;
            readNextExportPart(job);
        });
}

void startExportCopy(const std::shared_ptr<ExportJob> &job, qint64 size)
{
    const ExportFileOptions &o = job->exporter->options;
    if (size > o.maxFileBytes)
        return job->fail(QStringLiteral("%1 is %2, over the %3 a file may have (exportMaxFileMiB in config.json)")
                             .arg(job->shown, exportMib(size), exportMib(o.maxFileBytes)));
    qint64 &used = job->exporter->exportedBySandbox[job->sandboxId];
    if (used + size > o.maxSandboxBytes)
        return job->fail(QStringLiteral("this sandbox has exported %1 already; %2 more would pass its %3 budget "
                                        "(exportMaxSandboxMiB in config.json)")
                             .arg(exportMib(used), exportMib(size), exportMib(o.maxSandboxBytes)));
    used += size;
    job->size = size;
    job->reserved = true;
    QString error;
    if (!job->file.open(o.dir, HostExportFile::safeName(job->shown, job->folder), error))
        return job->fail(error);
    readNextExportPart(job);
}

void runExportFile(const std::shared_ptr<Exporter> &exporter, SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    auto job = std::make_shared<ExportJob>();
    job->exporter = exporter;
    job->channel = &channels.channelFor(sandbox);
    job->responder = call.responder;
    job->sandboxId = sandbox.sandboxId;
    job->shown = displayPath(sandbox, path);
    job->readPath = path;
    job->channel->request(QStringLiteral("export_stat"), {path.toUtf8()}, kExportPartTimeoutMs, [job](const ChannelReply &r) {
        if (!r.ok)
            return job->fail(replyFailure(r));
        if (r.meta.value(QStringLiteral("type")) == QLatin1String("file"))
            return startExportCopy(job, r.meta.value(QStringLiteral("size")).toLongLong());
        if (!job->channel)
            return job->fail(QStringLiteral("the sandbox was detached during the export"));
        // A folder: packed in the VM first, then copied like a file.
        job->folder = true;
        job->packToken = QString::number(QRandomGenerator::system()->generate64(), 36).toLower();
        job->channel->request(QStringLiteral("export_pack"), {job->readPath.toUtf8(), job->packToken.toLatin1()}, kExportPackTimeoutMs,
                              [job](const ChannelReply &packed) {
                                  if (!packed.ok)
                                      return job->fail(replyFailure(packed));
                                  job->readPath = packed.meta.value(QStringLiteral("path"));
                                  startExportCopy(job, packed.meta.value(QStringLiteral("size")).toLongLong());
                              });
    });
    call.cancellation.onCancel([weak = std::weak_ptr<ExportJob>(job)] {
        if (auto j = weak.lock())
            j->channel.clear();   // the next part finds no channel and stops; the staged file goes with the job
    });
}

} // namespace

void registerExportFileTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels,
                            const ExportFileOptions &options, ExportedFiles *events)
{
    auto exporter = std::make_shared<Exporter>();
    exporter->options = options;
    exporter->events = events;
    registry.add(exportFileDefinition(),
                 [exporter, &resolver, &channels](const ToolCall &call) { runExportFile(exporter, resolver, channels, call); });
}

} // namespace chat2sbx
