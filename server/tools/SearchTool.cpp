#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

constexpr int kMaxSearchPatternBytes = 4096;
constexpr int kMaxSearchGlobBytes = 512;
constexpr int kSearchMatchTextChars = 500;
constexpr int kSearchTimeoutMs = 60000;

ToolDefinition searchDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("search");
    d.title = QStringLiteral("Search files");
    d.description = QStringLiteral(
        "Use to find where something is in the files. Searches file contents for a literal string (or, with regex, an "
        "extended regular expression) and returns file, line and text, skipping .git, binary and (unless "
        "include_hidden) hidden files. Paths are relative to the workspace.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("pattern"), schema::str(QStringLiteral("Text to find (a regular expression if regex is true)"), kMaxSearchPatternBytes)},
         {QStringLiteral("regex"), schema::boolean(QStringLiteral("Treat pattern as an extended regular expression (default false)"))},
         {QStringLiteral("include_hidden"), schema::boolean(QStringLiteral("Also search files and directories whose name starts with a dot (default false)"))},
         {QStringLiteral("path"), schema::str(QStringLiteral("File or directory to search (default: the workspace)"), kMaxSandboxPathBytes)},
         {QStringLiteral("glob"), schema::str(QStringLiteral("Only files whose name matches, e.g. *.cpp"), kMaxSearchGlobBytes)},
         {QStringLiteral("max_results"), schema::integer(QStringLiteral("Maximum matches (default 200)"), 1, 5000)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("pattern")});
    const QJsonObject match = schema::result({{QStringLiteral("file"), schema::typed(QStringLiteral("string"))},
                                              {QStringLiteral("line"), schema::typed(QStringLiteral("integer"))},
                                              {QStringLiteral("text"), schema::typed(QStringLiteral("string"))}});
    d.outputSchema = schema::result({{QStringLiteral("matches"), schema::arrayOf(match)},
                                     {QStringLiteral("count"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("engine"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("note"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Searching the files…");
    d.presentation.invoked = QStringLiteral("Searched the files");
    return d;
}

// The helper's answer to `search` (lines "<file>\0<line>:<text>") as the tool's result.
QJsonObject searchResultJson(const ChannelReply &r, qint64 maxResults)
{
    QJsonArray matches;
    QList<QByteArray> lines = r.data.split('\n');
    if (r.data.endsWith('\n') || r.data.isEmpty())
        lines.removeLast();
    const bool truncated = lines.size() > maxResults || r.meta.value(QStringLiteral("timed_out")) == QLatin1String("1");
    for (const QByteArray &l : lines) {
        if (matches.size() >= maxResults)
            break;
        const qsizetype nul = l.indexOf('\0');
        const qsizetype colon = l.indexOf(':', nul + 1);
        if (nul < 0 || colon < 0)
            continue;
        QString file = QString::fromUtf8(l.left(nul));
        if (file.startsWith(QLatin1String("./")))
            file = file.mid(2);
        QString text = QString::fromUtf8(l.mid(colon + 1));
        if (text.size() > kSearchMatchTextChars)
            text = text.left(kSearchMatchTextChars) + QStringLiteral("…");
        matches.append(QJsonObject{{QStringLiteral("file"), file},
                                   {QStringLiteral("line"), l.mid(nul + 1, colon - nul - 1).toInt()},
                                   {QStringLiteral("text"), text}});
    }
    QJsonObject out{{QStringLiteral("matches"), matches},
                    {QStringLiteral("count"), static_cast<int>(matches.size())},
                    {QStringLiteral("truncated"), truncated},
                    {QStringLiteral("engine"), r.meta.value(QStringLiteral("engine"))}};
    if (truncated)
        out.insert(QStringLiteral("note"), QStringLiteral("more matches exist; narrow the pattern, path or glob"));
    return out;
}

void runSearch(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString pattern, path, glob;
    qint64 maxResults = 200;
    bool regex = false, hidden = false;
    if (!args.string(QStringLiteral("pattern"), pattern, kMaxSearchPatternBytes)
        || !args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("glob"), glob, kMaxSearchGlobBytes, ToolArgs::Presence::Optional)
        || !args.integer(QStringLiteral("max_results"), maxResults, 200)
        || !args.boolean(QStringLiteral("regex"), regex, false)
        || !args.boolean(QStringLiteral("include_hidden"), hidden, false))
        return call.responder.error(args.error());
    if (pattern.contains(QLatin1Char('\n')))
        return call.responder.error(QStringLiteral("pattern must be a single line"));
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    channels.channelFor(sandbox).request(
        QStringLiteral("search"),
        {pattern.toUtf8(), path.toUtf8(), glob.toUtf8(), QByteArray::number(maxResults), regex ? "1" : "0", hidden ? "1" : "0"},
        kSearchTimeoutMs, [responder = call.responder, maxResults](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(replyFailure(r));
            responder.ok(searchResultJson(r, maxResults));
        });
}

} // namespace

void addSearchTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(searchDefinition(), [&resolver, &channels](const ToolCall &call) { runSearch(resolver, channels, call); });
}

} // namespace chat2sbx
