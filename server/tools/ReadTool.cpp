#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/FileToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"

namespace chat2sbx {
namespace {

constexpr qint64 kReadCapBytes = 256 * 1024;
constexpr qint64 kDefaultReadLines = 2000;

ToolDefinition readDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("read");
    d.title = QStringLiteral("Read a file");
    d.description = QStringLiteral(
        "Use to look at a text file before changing it. Returns numbered lines (by default the first 2,000, at most "
        "256 KiB per call; a marker and truncated say where to continue) and the file's sha256. Binary files are "
        "reported with their size only.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("path"), sandboxPathProperty()},
         {QStringLiteral("offset"), schema::integer(QStringLiteral("First line to show, 1-based (default 1)"), 1, 1LL << 40)},
         {QStringLiteral("limit"), schema::integer(QStringLiteral("Number of lines (default 2000)"), 1, 1000000)},
         {QStringLiteral("start_line"), schema::integer(QStringLiteral("First line to show, 1-based (instead of offset)"), 1, 1LL << 40)},
         {QStringLiteral("end_line"), schema::integer(QStringLiteral("Last line to show, inclusive (instead of limit)"), 1, 1LL << 40)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("binary"), schema::typed(QStringLiteral("boolean"))},
                                     {QStringLiteral("size"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("total_lines"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("start_line"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("end_line"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("content"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Reading the file…");
    d.presentation.invoked = QStringLiteral("Read the file");
    d.presentation.payloadFields = {QStringLiteral("content")};
    return d;
}

// The helper's answer to `read` (from line `offset`) as the tool's result.
QJsonObject readResultJson(const QString &shown, qint64 offset, const ChannelReply &r)
{
    const qint64 size = r.meta.value(QStringLiteral("size")).toLongLong();
    QString sha = r.meta.value(QStringLiteral("sha256"));
    if (r.meta.value(QStringLiteral("whole")) == QLatin1String("1"))   // the data is the whole file
        sha = sha256Hex(r.data);
    if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
        return {{QStringLiteral("path"), shown},
                {QStringLiteral("binary"), true},
                {QStringLiteral("size"), static_cast<double>(size)},
                {QStringLiteral("sha256"), sha},
                {QStringLiteral("content"), QStringLiteral("(binary file, %1 bytes; not shown)").arg(size)},
                {QStringLiteral("truncated"), false}};
    const qint64 totalLines = r.meta.value(QStringLiteral("total_lines")).toLongLong();
    const QByteArray &data = r.data;
    const bool hitByteCap = data.size() > kReadCapBytes;
    QList<QByteArray> lines = data.split('\n');
    if (data.endsWith('\n') || data.isEmpty())
        lines.removeLast();
    else if (hitByteCap && lines.size() > 1)
        lines.removeLast();   // a line cut by the byte cap: shown from the next offset instead
    QString content;
    qint64 shownBytes = 0;
    qint64 line = offset;
    bool truncated = false;
    for (const QByteArray &l : lines) {
        const QString text = QStringLiteral("%1\t").arg(line, 6) + QString::fromUtf8(l) + QLatin1Char('\n');
        const qint64 bytes = text.toUtf8().size();
        if (shownBytes + bytes > kReadCapBytes) {
            if (line == offset)
                content += QString::fromUtf8(l.left(kReadCapBytes - 64)) + QLatin1Char('\n');
            truncated = true;
            break;
        }
        content += text;
        shownBytes += bytes;
        ++line;
    }
    if (hitByteCap)
        truncated = true;
    const qint64 lastLine = line - 1;
    if (truncated)
        content += QStringLiteral("[truncated at 256 KiB: showing lines %1-%2 of %3; read again with offset=%4]\n")
                       .arg(offset).arg(std::max(offset, lastLine)).arg(totalLines).arg(std::max(offset, lastLine) + 1);
    else if (lastLine < totalLines && !(lastLine < offset))
        content += QStringLiteral("[showing lines %1-%2 of %3; read again with offset=%4 for more]\n")
                       .arg(offset).arg(lastLine).arg(totalLines).arg(lastLine + 1);
    // `truncated` is true exactly when a marker says to read again.
    truncated = truncated || (lastLine < totalLines && !(lastLine < offset));
    return {{QStringLiteral("path"), shown},
            {QStringLiteral("binary"), false},
            {QStringLiteral("size"), static_cast<double>(size)},
            {QStringLiteral("total_lines"), static_cast<double>(totalLines)},
            {QStringLiteral("start_line"), static_cast<double>(offset)},
            {QStringLiteral("end_line"), static_cast<double>(lastLine)},
            {QStringLiteral("content"), content},
            {QStringLiteral("sha256"), sha},
            {QStringLiteral("truncated"), truncated}};
}

void runRead(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    qint64 offset = 1, limit = kDefaultReadLines, startLine = 0, endLine = 0;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes)
        || !args.integer(QStringLiteral("offset"), offset, 1)
        || !args.integer(QStringLiteral("limit"), limit, kDefaultReadLines)
        || !args.integer(QStringLiteral("start_line"), startLine, 0)
        || !args.integer(QStringLiteral("end_line"), endLine, 0))
        return call.responder.error(args.error());
    if (startLine || endLine) {
        if (call.arguments.contains(QStringLiteral("offset")) || call.arguments.contains(QStringLiteral("limit")))
            return call.responder.error(QStringLiteral("give either offset/limit or start_line/end_line, not both"));
        offset = startLine ? startLine : 1;
        if (endLine && endLine < offset)
            return call.responder.error(QStringLiteral("end_line (%1) is before start_line (%2)").arg(endLine).arg(offset));
        limit = endLine ? std::min<qint64>(endLine - offset + 1, 1000000) : kDefaultReadLines;
    }
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    channels.channelFor(sandbox).request(
        QStringLiteral("read"),
        {path.toUtf8(), QByteArray::number(offset), QByteArray::number(limit), QByteArray::number(kReadCapBytes + 1)},
        kFileRequestTimeoutMs, [responder = call.responder, shown, offset](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(replyFailure(r));
            responder.ok(readResultJson(shown, offset, r));
        });
}

} // namespace

void addReadTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(readDefinition(), [&resolver, &channels](const ToolCall &call) { runRead(resolver, channels, call); });
}

} // namespace chat2sbx
