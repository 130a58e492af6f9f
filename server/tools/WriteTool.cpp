#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/ContentDiff.h"
#include "tools/DiffPaths.h"
#include "tools/FileToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QPointer>

namespace chat2sbx {
namespace {

ToolDefinition writeDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("write");
    d.title = QStringLiteral("Write a file");
    d.description = QStringLiteral(
        "Use to create a file or replace all of it (for small changes prefer edit or apply_patch). Writes atomically, "
        "creating parent directories; with expected_sha256 only if the file is unchanged since you read it. Returns a "
        "diff against the previous content and the new sha256.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
                                    {QStringLiteral("path"), sandboxPathProperty()},
                                    {QStringLiteral("content"), schema::str(QStringLiteral("The complete new content"))},
                                    {QStringLiteral("expected_sha256"), expectedShaProperty()}},
                                   {QStringLiteral("sandbox_id"), QStringLiteral("path"), QStringLiteral("content")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("bytes_written"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("created"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("diff"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Writing the file…");
    d.presentation.invoked = QStringLiteral("Wrote the file");
    d.presentation.cardView = ToolCardView::Diff;
    d.presentation.payloadFields = {QStringLiteral("diff")};
    return d;
}

// The diff from what the helper's `get` found at the path to `content`.
QString writeDiff(const QString &headerPath, const ChannelReply &previous, const QByteArray &content)
{
    if (!previous.ok && previous.code == QLatin1String("enoent"))
        return contentDiff(headerPath, {}, content, true);
    if (!previous.ok)
        return QStringLiteral("(no diff: the previous content was larger than 8 MiB)\n");
    if (previous.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
        return QStringLiteral("(no diff: the previous content was binary)\n");
    return contentDiff(headerPath, previous.data, content, false);
}

void runWrite(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path, content, expected;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes)
        || !args.string(QStringLiteral("content"), content, kMaxFileWriteBytes, ToolArgs::Presence::RequiredMayBeEmpty))
        return call.responder.error(args.error());
    if (!readExpectedSha(call, args, expected))
        return;
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    QPointer<SandboxChannel> channel = &channels.channelFor(sandbox);
    const QByteArray bytes = content.toUtf8();
    // The previous content, for the diff; a missing file is a new one.
    channel->request(
        QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxFileEditBytes)}, kFileRequestTimeoutMs,
        [responder = call.responder, shown, headerPath = diffHeaderPath(sandbox.workspacePath, sandbox.managedWorkspace, path),
         path, channel, bytes, expected](const ChannelReply &r) {
            if (!r.ok && (r.channelFailure || (r.code != QLatin1String("enoent") && r.code != QLatin1String("efbig"))))
                return responder.error(replyFailure(r));
            if (!channel)
                return responder.error(QStringLiteral("the sandbox was detached during the write"));
            const bool created = !r.ok && r.code == QLatin1String("enoent");
            if (created && !expected.isEmpty())
                return responder.error(QStringLiteral("%1 does not exist, so it cannot have sha256 %2; nothing was written")
                                           .arg(shown, expected),
                                       {{QStringLiteral("current_sha256"), QJsonValue(QJsonValue::Null)}});
            const QString diff = writeDiff(headerPath, r, bytes);
            writeSandboxFile(*channel, path, expected.toLatin1(), bytes, [responder, shown, diff, bytes, expected](const ChannelReply &w) {
                if (!w.ok && w.code == QLatin1String("estale")) {
                    const QString current = w.meta.value(QStringLiteral("sha256"));
                    return responder.error(
                        QStringLiteral("%1 has changed: its sha256 is %2, not %3; nothing was written. Read it again before "
                                       "writing.").arg(shown, current, expected),
                        {{QStringLiteral("current_sha256"), current}});
                }
                if (!w.ok)
                    return responder.error(replyFailure(w));
                responder.ok({{QStringLiteral("path"), shown},
                              {QStringLiteral("bytes_written"), w.meta.value(QStringLiteral("bytes")).toDouble()},
                              {QStringLiteral("created"), diff.startsWith(QLatin1String("--- /dev/null"))},
                              {QStringLiteral("sha256"), sha256Hex(bytes)},
                              {QStringLiteral("diff"), diff}});
            });
        });
}

} // namespace

void addWriteTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(writeDefinition(), [&resolver, &channels](const ToolCall &call) { runWrite(resolver, channels, call); });
}

} // namespace chat2sbx
