#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

constexpr int kListEntryCap = 1000;

ToolDefinition listDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("list");
    d.title = QStringLiteral("List a directory");
    d.description = QStringLiteral(
        "Lists entries below a directory in the sandbox with type and size, to the given depth (default 2), .git "
        "pruned, at most 1,000 entries.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("path"), schema::str(QStringLiteral("Directory (default: the workspace)"), kMaxSandboxPathBytes)},
         {QStringLiteral("depth"), schema::integer(QStringLiteral("How many levels (default 2)"), 1, 20)}},
        {QStringLiteral("sandbox_id")});
    const QJsonObject type{{QStringLiteral("type"), QStringLiteral("string")},
                           {QStringLiteral("enum"), QJsonArray{QStringLiteral("file"), QStringLiteral("directory"),
                                                               QStringLiteral("symlink"), QStringLiteral("other")}}};
    const QJsonObject entry = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                              {QStringLiteral("type"), type},
                                              {QStringLiteral("size"), schema::nullable(schema::typed(QStringLiteral("integer")))}});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("entries"), schema::arrayOf(entry)},
                                     {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("note"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Listing the folder…");
    d.presentation.invoked = QStringLiteral("Listed the folder");
    return d;
}

// The helper's answer to `list` (NUL-separated "<type>\t<size>\t<path>" records) as the tool's result.
QJsonObject directoryListingJson(const QString &shown, const ChannelReply &r)
{
    QList<QByteArray> records = r.data.split('\0');
    if (r.data.endsWith('\0') || r.data.isEmpty())
        records.removeLast();
    const bool truncated = records.size() > kListEntryCap;
    QJsonArray entries;
    for (const QByteArray &rec : records) {
        if (entries.size() >= kListEntryCap)
            break;
        const QList<QByteArray> f = rec.split('\t');
        if (f.size() < 3)
            continue;
        const QByteArray t = f.at(0);
        const QString type = t == "f" ? QStringLiteral("file")
                             : t == "d" ? QStringLiteral("directory")
                             : t == "l" ? QStringLiteral("symlink")
                                        : QStringLiteral("other");
        entries.append(QJsonObject{
            {QStringLiteral("path"), QString::fromUtf8(rec.mid(f.at(0).size() + f.at(1).size() + 2))},
            {QStringLiteral("type"), type},
            {QStringLiteral("size"), t == "d" ? QJsonValue(QJsonValue::Null) : QJsonValue(f.at(1).toDouble())}});
    }
    QJsonObject out{{QStringLiteral("path"), shown}, {QStringLiteral("entries"), entries},
                    {QStringLiteral("truncated"), truncated}};
    if (truncated)
        out.insert(QStringLiteral("note"), QStringLiteral("listing capped at 1,000 entries; list a subdirectory "
                                                          "or use a smaller depth"));
    return out;
}

void runList(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    qint64 depth = 2;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes, ToolArgs::Presence::Optional)
        || !args.integer(QStringLiteral("depth"), depth, 2))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    channels.channelFor(sandbox).request(
        QStringLiteral("list"), {path.toUtf8(), QByteArray::number(depth), QByteArray::number(kListEntryCap)},
        kFileRequestTimeoutMs, [responder = call.responder, shown](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(replyFailure(r));
            responder.ok(directoryListingJson(shown, r));
        });
}

} // namespace

void addListTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(listDefinition(), [&resolver, &channels](const ToolCall &call) { runList(resolver, channels, call); });
}

} // namespace chat2sbx
