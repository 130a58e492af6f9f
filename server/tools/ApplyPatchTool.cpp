#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"
#include "tools/PatchApplier.h"
#include "tools/PatchParser.h"
#include "tools/ToolArgs.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QPointer>
#include <QSet>

#include <memory>

namespace chat2sbx {
namespace {

constexpr int kMaxPatchBytes = 4 * 1024 * 1024;
constexpr int kMaxPatchFiles = 200;
constexpr int kMaxPatchFileBytes = 8 * 1024 * 1024;
constexpr qint64 kMaxPatchTotalBytes = 32 * 1024 * 1024;

ToolDefinition applyPatchDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("apply_patch");
    d.title = QStringLiteral("Apply a patch");
    d.description = QStringLiteral(
        "Use to change several places or files in one step. Takes a unified diff (as git diff prints it, including new, "
        "deleted and renamed files) or a \"*** Begin Patch\" patch. Hunks are found by their context, so line numbers "
        "may be off. All or nothing: if any hunk does not apply, nothing changes and the error shows the nearest lines.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("patch"), schema::str(QStringLiteral("The patch text; paths relative to the workspace"), kMaxPatchBytes)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("patch")});
    const QJsonObject file = schema::result(
        {{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
         {QStringLiteral("action"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                {QStringLiteral("enum"), QJsonArray{QStringLiteral("update"), QStringLiteral("add"),
                                                                                    QStringLiteral("delete"), QStringLiteral("rename")}}}},
         {QStringLiteral("from"), schema::typed(QStringLiteral("string"))},
         {QStringLiteral("lines_added"), schema::typed(QStringLiteral("integer"))},
         {QStringLiteral("lines_removed"), schema::typed(QStringLiteral("integer"))}});
    d.outputSchema = schema::result(
        {{QStringLiteral("files"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), file}}}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Applying the patch…");
    d.presentation.invoked = QStringLiteral("Applied the patch");
    d.presentation.cardView = ToolCardView::Diff;
    return d;
}

// One call's work: the parsed files, their current content (fetched one after another), then the
// new contents written in one helper request.
struct PatchJob {
    RunningSandbox sandbox;
    QPointer<SandboxChannel> channel;
    ToolResponder responder;
    QList<FilePatch> files;
    QList<QByteArray> before;
    QList<QByteArray> beforeSha;
    int next = 0;
};

QString patchActionName(const FilePatch &f)
{
    switch (f.action) {
    case FilePatch::Action::Add: return QStringLiteral("add");
    case FilePatch::Action::Delete: return QStringLiteral("delete");
    case FilePatch::Action::Update: break;
    }
    return f.moveTo.isEmpty() ? QStringLiteral("update") : QStringLiteral("rename");
}

bool checkPatchPath(const QString &path, QString &error)
{
    if (path.toUtf8().size() > kMaxSandboxPathBytes || path.contains(QChar(0)) || path.contains(QLatin1Char('\n'))) {
        error = QStringLiteral("the patch names an invalid path: %1").arg(path.left(200));
        return false;
    }
    return true;
}

void writePatchedFiles(const std::shared_ptr<PatchJob> &job)
{
    QList<QByteArray> entries;
    QByteArray contents;
    QJsonArray results;
    int count = 0;
    auto add = [&](const char *action, const QString &path, const QByteArray &expected, const QByteArray &content) {
        entries << QByteArray(action) << path.toUtf8() << expected << QByteArray::number(content.size());
        contents += content;
        ++count;
    };
    for (int i = 0; i < job->files.size(); ++i) {
        const FilePatch &f = job->files.at(i);
        PatchApplier::Outcome outcome;
        QString error;
        if (!PatchApplier::apply(f, job->before.at(i), outcome, error))
            return job->responder.error(error + QStringLiteral("\nNothing was changed."));
        if (contents.size() + outcome.content.size() > kMaxPatchTotalBytes)
            return job->responder.error(QStringLiteral("the patched files would be larger than %1 MiB together; split the patch")
                                            .arg(kMaxPatchTotalBytes >> 20));
        QJsonObject r{{QStringLiteral("path"), displayPath(job->sandbox, f.moveTo.isEmpty() ? f.path : f.moveTo)},
                      {QStringLiteral("action"), patchActionName(f)},
                      {QStringLiteral("lines_added"), outcome.added},
                      {QStringLiteral("lines_removed"), outcome.removed}};
        switch (f.action) {
        case FilePatch::Action::Add:
            add("w", f.path, "none", outcome.content);
            break;
        case FilePatch::Action::Delete:
            add("d", f.path, job->beforeSha.at(i), {});
            break;
        case FilePatch::Action::Update:
            if (f.moveTo.isEmpty()) {
                add("w", f.path, job->beforeSha.at(i), outcome.content);
            } else {
                add("w", f.moveTo, "none", outcome.content);
                add("d", f.path, job->beforeSha.at(i), {});
                r.insert(QStringLiteral("from"), displayPath(job->sandbox, f.path));
            }
            break;
        }
        results.append(r);
    }
    if (!job->channel)
        return job->responder.error(QStringLiteral("the sandbox was detached during the patch; nothing was changed"));
    QList<QByteArray> args{QByteArray::number(count)};
    args += entries;
    args << contents;
    job->channel->request(QStringLiteral("apply"), args, kFileRequestTimeoutMs, [job, results](const ChannelReply &r) {
        if (!r.ok)
            return job->responder.error(replyFailure(r) + (r.channelFailure ? QString() : QStringLiteral("\nNothing was changed.")));
        job->responder.ok({{QStringLiteral("files"), results}});
    });
}

// Fetches the current content of every file the patch updates or deletes, one after another.
void fetchNextPatchedFile(const std::shared_ptr<PatchJob> &job)
{
    while (job->next < job->files.size() && job->files.at(job->next).action == FilePatch::Action::Add)
        ++job->next;
    if (job->next >= job->files.size())
        return writePatchedFiles(job);
    if (!job->channel)
        return job->responder.error(QStringLiteral("the sandbox was detached during the patch; nothing was changed"));
    const int i = job->next;
    const QString path = job->files.at(i).path;
    job->channel->request(QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxPatchFileBytes)}, kFileRequestTimeoutMs,
                          [job, i, path](const ChannelReply &r) {
                              const QString shown = displayPath(job->sandbox, path);
                              if (!r.ok)
                                  return job->responder.error(QStringLiteral("%1\nNothing was changed.").arg(replyFailure(r)));
                              if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
                                  return job->responder.error(
                                      QStringLiteral("%1 is a binary file; apply_patch only changes text files. Nothing was changed.")
                                          .arg(shown));
                              job->before[i] = r.data;
                              job->beforeSha[i] = QCryptographicHash::hash(r.data, QCryptographicHash::Sha256).toHex();
                              ++job->next;
                              fetchNextPatchedFile(job);
                          });
}

void runApplyPatch(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString patch;
    if (!args.string(QStringLiteral("patch"), patch, kMaxPatchBytes))
        return call.responder.error(args.error());
    auto job = std::make_shared<PatchJob>();
    QString error;
    if (!PatchParser::parse(patch.toUtf8(), job->files, error))
        return call.responder.error(QStringLiteral("the patch could not be read: %1").arg(error));
    if (job->files.size() > kMaxPatchFiles)
        return call.responder.error(QStringLiteral("the patch changes %1 files; at most %2 per call").arg(job->files.size()).arg(kMaxPatchFiles));
    QSet<QString> touched;
    for (const FilePatch &f : job->files) {
        for (const QString &p : {f.path, f.moveTo}) {
            if (p.isEmpty())
                continue;
            if (!checkPatchPath(p, error))
                return call.responder.error(error);
            if (touched.contains(p))
                return call.responder.error(
                    QStringLiteral("%1 appears more than once in the patch; put all its changes in one file section").arg(p));
            touched.insert(p);
        }
    }
    RunningSandbox sandbox;
    if (!resolveSandbox(resolver, call, args, sandbox))
        return;
    job->sandbox = sandbox;
    job->channel = &channels.channelFor(sandbox);
    job->responder = call.responder;
    job->before.resize(job->files.size());
    job->beforeSha.resize(job->files.size());
    fetchNextPatchedFile(job);
}

} // namespace

void addApplyPatchTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(applyPatchDefinition(), [&resolver, &channels](const ToolCall &call) { runApplyPatch(resolver, channels, call); });
}

} // namespace chat2sbx
