#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxResolver.h"
#include "tools/ContentDiff.h"
#include "tools/DiffPaths.h"
#include "tools/EditPlan.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"
#include "tools/UnifiedDiff.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QPointer>

namespace chat2sbx {
namespace {

constexpr int kMaxPathBytes = 4096;
constexpr qint64 kReadCapBytes = 256 * 1024;
constexpr qint64 kDefaultReadLines = 2000;
constexpr int kMaxWriteBytes = 10 * 1024 * 1024;
constexpr int kMaxEditFileBytes = 8 * 1024 * 1024;
constexpr int kMaxEditStringBytes = 1024 * 1024;
constexpr int kMaxPatternBytes = 4096;
constexpr int kMaxGlobBytes = 512;
constexpr int kListCap = 1000;
constexpr int kMatchTextChars = 500;
constexpr int kFileOpTimeoutMs = 30000;
constexpr int kSearchTimeoutMs = 60000;

struct Context {
    SandboxResolver &resolver;
    ChannelPool &channels;
};

bool resolve(Context &ctx, const ToolCall &call, ToolArgs &args, RunningSandbox &sandbox)
{
    if (!resolveSandbox(ctx.resolver, call, args, sandbox))
        return false;
    noteChannelStart(call, ctx.channels, sandbox);
    return true;
}

QString failure(const ChannelReply &r) { return replyFailure(r); }

void handleRead(Context &ctx, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    qint64 offset = 1, limit = kDefaultReadLines, startLine = 0, endLine = 0;
    if (!args.string(QStringLiteral("path"), path, kMaxPathBytes)
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
    if (!resolve(ctx, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    ctx.channels.channelFor(sandbox).request(
        QStringLiteral("read"),
        {path.toUtf8(), QByteArray::number(offset), QByteArray::number(limit), QByteArray::number(kReadCapBytes + 1)},
        kFileOpTimeoutMs, [responder = call.responder, shown, offset](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(failure(r));
            const qint64 size = r.meta.value(QStringLiteral("size")).toLongLong();
            QString sha = r.meta.value(QStringLiteral("sha256"));
            if (r.meta.value(QStringLiteral("whole")) == QLatin1String("1"))   // the data is the whole file
                sha = QString::fromLatin1(QCryptographicHash::hash(r.data, QCryptographicHash::Sha256).toHex());
            if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
                return responder.ok({{QStringLiteral("path"), shown},
                                     {QStringLiteral("binary"), true},
                                     {QStringLiteral("size"), static_cast<double>(size)},
                                     {QStringLiteral("sha256"), sha},
                                     {QStringLiteral("content"), QStringLiteral("(binary file, %1 bytes; not shown)").arg(size)},
                                     {QStringLiteral("truncated"), false}});
            const qint64 totalLines = r.meta.value(QStringLiteral("total_lines")).toLongLong();
            QByteArray data = r.data;
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
            responder.ok({{QStringLiteral("path"), shown},
                          {QStringLiteral("binary"), false},
                          {QStringLiteral("size"), static_cast<double>(size)},
                          {QStringLiteral("total_lines"), static_cast<double>(totalLines)},
                          {QStringLiteral("start_line"), static_cast<double>(offset)},
                          {QStringLiteral("end_line"), static_cast<double>(lastLine)},
                          {QStringLiteral("content"), content},
                          {QStringLiteral("sha256"), sha},
                          {QStringLiteral("truncated"), truncated}});
        });
}

// expectedSha: empty for any content, otherwise the sha256 the file must still have (checked in the
// sandbox right before the rename).
void writeFile(SandboxChannel &channel, const QString &path, const QByteArray &expectedSha, const QByteArray &content,
               std::function<void(const ChannelReply &)> done)
{
    channel.request(QStringLiteral("write"), {path.toUtf8(), expectedSha, content}, kFileOpTimeoutMs, std::move(done));
}

QString sha256Hex(const QByteArray &bytes) { return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex()); }

bool readExpectedSha(const ToolCall &call, ToolArgs &args, QString &sha)
{
    if (!args.string(QStringLiteral("expected_sha256"), sha, 64, false)) {
        call.responder.error(args.error());
        return false;
    }
    sha = sha.toLower();
    return true;
}

void handleWrite(Context &ctx, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path, content, expected;
    if (!args.string(QStringLiteral("path"), path, kMaxPathBytes)
        || !args.string(QStringLiteral("content"), content, kMaxWriteBytes, true, true))
        return call.responder.error(args.error());
    if (!readExpectedSha(call, args, expected))
        return;
    RunningSandbox sandbox;
    if (!resolve(ctx, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    QPointer<SandboxChannel> channel = &ctx.channels.channelFor(sandbox);
    const QByteArray bytes = content.toUtf8();
    // The previous content, for the diff; a missing file is a new one.
    channel->request(
        QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxEditFileBytes)}, kFileOpTimeoutMs,
        [responder = call.responder, shown, headerPath = diffHeaderPath(sandbox.workspacePath, sandbox.managedWorkspace, path),
         path, channel, bytes, expected](const ChannelReply &r) {
            if (!r.ok && (r.channelFailure || (r.code != QLatin1String("enoent") && r.code != QLatin1String("efbig"))))
                return responder.error(failure(r));
            if (!channel)
                return responder.error(QStringLiteral("the sandbox was detached during the write"));
            const bool created = !r.ok && r.code == QLatin1String("enoent");
            if (created && !expected.isEmpty())
                return responder.error(QStringLiteral("%1 does not exist, so it cannot have sha256 %2; nothing was written")
                                           .arg(shown, expected),
                                       {{QStringLiteral("current_sha256"), QJsonValue(QJsonValue::Null)}});
            QString diff;
            if (created)
                diff = contentDiff(headerPath, {}, bytes, true);
            else if (!r.ok)
                diff = QStringLiteral("(no diff: the previous content was larger than 8 MiB)\n");
            else if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
                diff = QStringLiteral("(no diff: the previous content was binary)\n");
            else
                diff = contentDiff(headerPath, r.data, bytes, false);
            writeFile(*channel, path, expected.toLatin1(), bytes, [responder, shown, diff, bytes, expected](const ChannelReply &w) {
                if (!w.ok && w.code == QLatin1String("estale")) {
                    const QString current = w.meta.value(QStringLiteral("sha256"));
                    return responder.error(
                        QStringLiteral("%1 has changed: its sha256 is %2, not %3; nothing was written. Read it again before "
                                       "writing.").arg(shown, current, expected),
                        {{QStringLiteral("current_sha256"), current}});
                }
                if (!w.ok)
                    return responder.error(failure(w));
                responder.ok({{QStringLiteral("path"), shown},
                              {QStringLiteral("bytes_written"), w.meta.value(QStringLiteral("bytes")).toDouble()},
                              {QStringLiteral("created"), diff.startsWith(QLatin1String("--- /dev/null"))},
                              {QStringLiteral("sha256"), sha256Hex(bytes)},
                              {QStringLiteral("diff"), diff}});
            });
        });
}

void handleEdit(Context &ctx, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path, oldString, newString, expected;
    bool replaceAll = false;
    qint64 expectedCount = 0;
    if (!args.string(QStringLiteral("path"), path, kMaxPathBytes)
        || !args.string(QStringLiteral("old_string"), oldString, kMaxEditStringBytes)
        || !args.string(QStringLiteral("new_string"), newString, kMaxEditStringBytes, true, true)
        || !args.boolean(QStringLiteral("replace_all"), replaceAll, false)
        || !args.integer(QStringLiteral("expected_replacements"), expectedCount, 0))
        return call.responder.error(args.error());
    if (!readExpectedSha(call, args, expected))
        return;
    if (oldString == newString)
        return call.responder.error(QStringLiteral("no change: old_string and new_string are equal"));
    RunningSandbox sandbox;
    if (!resolve(ctx, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    QPointer<SandboxChannel> channel = &ctx.channels.channelFor(sandbox);
    const QByteArray oldBytes = oldString.toUtf8(), newBytes = newString.toUtf8();
    channel->request(
        QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxEditFileBytes)}, kFileOpTimeoutMs,
        [responder = call.responder, shown, headerPath = diffHeaderPath(sandbox.workspacePath, sandbox.managedWorkspace, path),
         path, channel, oldBytes, newBytes, replaceAll, expected, expectedCount](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(failure(r));
            const QString currentSha = r.meta.value(QStringLiteral("sha256"));
            if (!expected.isEmpty() && currentSha != expected)
                return responder.error(QStringLiteral("%1 has changed: its sha256 is %2, not %3; nothing was edited. Read it "
                                                      "again before editing.").arg(shown, currentSha, expected),
                                       {{QStringLiteral("current_sha256"), currentSha}});
            if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
                return responder.error(QStringLiteral("%1 is a binary file; edit only changes text files").arg(shown));
            const QByteArray &before = r.data;
            const EditPlan plan = planEdit(before, oldBytes, newBytes, replaceAll || expectedCount > 0, kMaxWriteBytes);
            if (expectedCount && plan.matches && plan.matches != expectedCount)
                return responder.error(QStringLiteral("old_string matches %1 times in %2, not the expected %3; nothing was "
                                                      "edited").arg(plan.matches).arg(shown).arg(expectedCount));
            switch (plan.outcome) {
            case EditPlan::Outcome::NotFound:
                return responder.error(QStringLiteral("old_string was not found in %1 (0 matches)").arg(shown));
            case EditPlan::Outcome::Ambiguous:
                return responder.error(QStringLiteral("old_string matches %1 times in %2; include more context to make it "
                                                      "unique, or set replace_all to replace every match")
                                           .arg(plan.matches).arg(shown));
            case EditPlan::Outcome::TooLarge:
                return responder.error(QStringLiteral("the edited file would be %1 bytes (%2 replacements), larger than "
                                                      "the %3-byte limit; replace fewer matches or use a shorter new_string")
                                           .arg(plan.resultBytes).arg(plan.matches).arg(kMaxWriteBytes));
            case EditPlan::Outcome::Ok:
                break;
            }
            if (!channel)
                return responder.error(QStringLiteral("the sandbox was detached during the edit"));
            const QString diff = replacementDiff(headerPath, before, oldBytes, newBytes);
            const int count = static_cast<int>(plan.matches);
            // The write only succeeds if the file is still what was edited.
            const QString newSha = sha256Hex(plan.after);
            writeFile(*channel, path, currentSha.toLatin1(), plan.after, [responder, shown, diff, count, newSha](const ChannelReply &w) {
                if (!w.ok && w.code == QLatin1String("estale"))
                    return responder.error(QStringLiteral("%1 changed while it was being edited; nothing was edited. Try again.")
                                               .arg(shown));
                if (!w.ok)
                    return responder.error(failure(w));
                responder.ok({{QStringLiteral("path"), shown},
                              {QStringLiteral("replacements"), count},
                              {QStringLiteral("sha256"), newSha},
                              {QStringLiteral("diff"), diff}});
            });
        });
}

void handleSearch(Context &ctx, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString pattern, path, glob;
    qint64 maxResults = 200;
    bool regex = false, hidden = false;
    if (!args.string(QStringLiteral("pattern"), pattern, kMaxPatternBytes)
        || !args.string(QStringLiteral("path"), path, kMaxPathBytes, false)
        || !args.string(QStringLiteral("glob"), glob, kMaxGlobBytes, false)
        || !args.integer(QStringLiteral("max_results"), maxResults, 200)
        || !args.boolean(QStringLiteral("regex"), regex, false)
        || !args.boolean(QStringLiteral("include_hidden"), hidden, false))
        return call.responder.error(args.error());
    if (pattern.contains(QLatin1Char('\n')))
        return call.responder.error(QStringLiteral("pattern must be a single line"));
    RunningSandbox sandbox;
    if (!resolve(ctx, call, args, sandbox))
        return;
    ctx.channels.channelFor(sandbox).request(
        QStringLiteral("search"),
        {pattern.toUtf8(), path.toUtf8(), glob.toUtf8(), QByteArray::number(maxResults), regex ? "1" : "0", hidden ? "1" : "0"},
        kSearchTimeoutMs, [responder = call.responder, maxResults](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(failure(r));
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
                if (text.size() > kMatchTextChars)
                    text = text.left(kMatchTextChars) + QStringLiteral("…");
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
            responder.ok(out);
        });
}

void handleList(Context &ctx, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path;
    qint64 depth = 2;
    if (!args.string(QStringLiteral("path"), path, kMaxPathBytes, false)
        || !args.integer(QStringLiteral("depth"), depth, 2))
        return call.responder.error(args.error());
    RunningSandbox sandbox;
    if (!resolve(ctx, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    ctx.channels.channelFor(sandbox).request(
        QStringLiteral("list"), {path.toUtf8(), QByteArray::number(depth), QByteArray::number(kListCap)}, kFileOpTimeoutMs,
        [responder = call.responder, shown](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(failure(r));
            QList<QByteArray> records = r.data.split('\0');
            if (r.data.endsWith('\0') || r.data.isEmpty())
                records.removeLast();
            const bool truncated = records.size() > kListCap;
            QJsonArray entries;
            for (const QByteArray &rec : records) {
                if (entries.size() >= kListCap)
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
            responder.ok(out);
        });
}

} // namespace

void registerFileTools(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    auto ctx = std::make_shared<Context>(Context{resolver, channels});
    const QJsonObject sandboxId = schema::sandboxIdProperty();
    const QString pathHelp = QStringLiteral("Relative to the workspace, absolute inside the sandbox, or starting with ~/");

    ToolDefinition read;
    read.name = QStringLiteral("read");
    read.title = QStringLiteral("Read a file");
    read.description = QStringLiteral(
        "Use to look at a text file before changing it. Returns numbered lines (by default the first 2,000, at most "
        "256 KiB per call; a marker and truncated say where to continue) and the file's sha256. Binary files are "
        "reported with their size only.");
    read.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("path"), schema::str(pathHelp, kMaxPathBytes)},
         {QStringLiteral("offset"), schema::integer(QStringLiteral("First line to show, 1-based (default 1)"), 1, 1LL << 40)},
         {QStringLiteral("limit"), schema::integer(QStringLiteral("Number of lines (default 2000)"), 1, 1000000)},
         {QStringLiteral("start_line"), schema::integer(QStringLiteral("First line to show, 1-based (instead of offset)"), 1, 1LL << 40)},
         {QStringLiteral("end_line"), schema::integer(QStringLiteral("Last line to show, inclusive (instead of limit)"), 1, 1LL << 40)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path")});
    read.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("binary"), schema::typed(QStringLiteral("boolean"))},
                                        {QStringLiteral("size"), schema::typed(QStringLiteral("integer"))},
                                        {QStringLiteral("total_lines"), schema::typed(QStringLiteral("integer"))},
                                        {QStringLiteral("start_line"), schema::typed(QStringLiteral("integer"))},
                                        {QStringLiteral("end_line"), schema::typed(QStringLiteral("integer"))},
                                        {QStringLiteral("content"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))}},
                                       {QStringLiteral("path"), QStringLiteral("binary"), QStringLiteral("size"),
                                        QStringLiteral("content"), QStringLiteral("truncated")});
    read.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    read.presentation = {QStringLiteral("Reading the file…"), QStringLiteral("Read the file"), false, {QStringLiteral("content")}};
    registry.add(read, [ctx](const ToolCall &call) { handleRead(*ctx, call); });

    ToolDefinition write;
    write.name = QStringLiteral("write");
    write.title = QStringLiteral("Write a file");
    write.description = QStringLiteral(
        "Use to create a file or replace all of it (for small changes prefer edit or apply_patch). Writes atomically, "
        "creating parent directories; with expected_sha256 only if the file is unchanged since you read it. Returns a "
        "diff against the previous content and the new sha256.");
    const QJsonObject sha = QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                        {QStringLiteral("description"), QStringLiteral("Only change the file if its sha256 (from read) is still this")},
                                        {QStringLiteral("pattern"), QStringLiteral("^[0-9a-fA-F]{64}$")}};
    write.inputSchema = schema::object({{QStringLiteral("sandbox_id"), sandboxId},
                                        {QStringLiteral("path"), schema::str(pathHelp, kMaxPathBytes)},
                                        {QStringLiteral("content"), schema::str(QStringLiteral("The complete new content"))},
                                        {QStringLiteral("expected_sha256"), sha}},
                                       {QStringLiteral("sandbox_id"), QStringLiteral("path"), QStringLiteral("content")});
    write.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                         {QStringLiteral("bytes_written"), schema::typed(QStringLiteral("integer"))},
                                         {QStringLiteral("created"), schema::typed(QStringLiteral("boolean"))},
                                         {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                         {QStringLiteral("diff"), schema::typed(QStringLiteral("string"))}},
                                        {QStringLiteral("path"), QStringLiteral("bytes_written")});
    write.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    write.presentation = {QStringLiteral("Writing the file…"), QStringLiteral("Wrote the file"), true, {QStringLiteral("diff")}};
    registry.add(write, [ctx](const ToolCall &call) { handleWrite(*ctx, call); });

    ToolDefinition edit;
    edit.name = QStringLiteral("edit");
    edit.title = QStringLiteral("Edit a file");
    edit.description = QStringLiteral(
        "Use for a small change to a text file: replaces an exact string. old_string must match exactly once unless "
        "replace_all is true or expected_replacements gives the count; otherwise the call fails and says how many "
        "matches there are. Returns a short diff and the new sha256.");
    edit.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("path"), schema::str(pathHelp, kMaxPathBytes)},
         {QStringLiteral("old_string"), schema::str(QStringLiteral("Exact text to replace"))},
         {QStringLiteral("new_string"), schema::str(QStringLiteral("Replacement text"))},
         {QStringLiteral("replace_all"), schema::boolean(QStringLiteral("Replace every match (default false)"))},
         {QStringLiteral("expected_replacements"), schema::integer(QStringLiteral("Fail unless old_string matches exactly this many times; all are replaced"), 1, 1000000)},
         {QStringLiteral("expected_sha256"), sha}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path"), QStringLiteral("old_string"), QStringLiteral("new_string")});
    edit.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("replacements"), schema::typed(QStringLiteral("integer"))},
                                        {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("diff"), schema::typed(QStringLiteral("string"))}},
                                       {QStringLiteral("path"), QStringLiteral("replacements"), QStringLiteral("diff")});
    edit.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    edit.presentation = {QStringLiteral("Editing the file…"), QStringLiteral("Edited the file"), true, {QStringLiteral("diff")}};
    registry.add(edit, [ctx](const ToolCall &call) { handleEdit(*ctx, call); });

    ToolDefinition search;
    search.name = QStringLiteral("search");
    search.title = QStringLiteral("Search files");
    search.description = QStringLiteral(
        "Use to find where something is in the files. Searches file contents for a literal string (or, with regex, an "
        "extended regular expression) and returns file, line and text, skipping .git, binary and (unless "
        "include_hidden) hidden files. Paths are relative to the workspace.");
    search.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("pattern"), schema::str(QStringLiteral("Text to find (a regular expression if regex is true)"), kMaxPatternBytes)},
         {QStringLiteral("regex"), schema::boolean(QStringLiteral("Treat pattern as an extended regular expression (default false)"))},
         {QStringLiteral("include_hidden"), schema::boolean(QStringLiteral("Also search files and directories whose name starts with a dot (default false)"))},
         {QStringLiteral("path"), schema::str(QStringLiteral("File or directory to search (default: the workspace)"), kMaxPathBytes)},
         {QStringLiteral("glob"), schema::str(QStringLiteral("Only files whose name matches, e.g. *.cpp"), kMaxGlobBytes)},
         {QStringLiteral("max_results"), schema::integer(QStringLiteral("Maximum matches (default 200)"), 1, 5000)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("pattern")});
    const QJsonObject match = schema::result({{QStringLiteral("file"), schema::typed(QStringLiteral("string"))},
                                              {QStringLiteral("line"), schema::typed(QStringLiteral("integer"))},
                                              {QStringLiteral("text"), schema::typed(QStringLiteral("string"))}},
                                             {QStringLiteral("file"), QStringLiteral("line"), QStringLiteral("text")});
    search.outputSchema = schema::result({{QStringLiteral("matches"), schema::arrayOf(match)},
                                          {QStringLiteral("count"), schema::typed(QStringLiteral("integer"))},
                                          {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))},
                                          {QStringLiteral("engine"), schema::typed(QStringLiteral("string"))},
                                          {QStringLiteral("note"), schema::typed(QStringLiteral("string"))}},
                                         {QStringLiteral("matches"), QStringLiteral("count"), QStringLiteral("truncated")});
    search.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    search.presentation = {QStringLiteral("Searching the files…"), QStringLiteral("Searched the files"), false};
    registry.add(search, [ctx](const ToolCall &call) { handleSearch(*ctx, call); });

    ToolDefinition list;
    list.name = QStringLiteral("list");
    list.title = QStringLiteral("List a directory");
    list.description = QStringLiteral(
        "Lists entries below a directory in the sandbox with type and size, to the given depth (default 2), .git "
        "pruned, at most 1,000 entries.");
    list.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), sandboxId},
         {QStringLiteral("path"), schema::str(QStringLiteral("Directory (default: the workspace)"), kMaxPathBytes)},
         {QStringLiteral("depth"), schema::integer(QStringLiteral("How many levels (default 2)"), 1, 20)}},
        {QStringLiteral("sandbox_id")});
    const QJsonObject entry = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                              {QStringLiteral("type"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                                                   {QStringLiteral("enum"), QJsonArray{QStringLiteral("file"), QStringLiteral("directory"), QStringLiteral("symlink"), QStringLiteral("other")}}}},
                                              {QStringLiteral("size"), schema::nullable(schema::typed(QStringLiteral("integer")))}},
                                             {QStringLiteral("path"), QStringLiteral("type"), QStringLiteral("size")});
    list.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                        {QStringLiteral("entries"), schema::arrayOf(entry)},
                                        {QStringLiteral("truncated"), schema::typed(QStringLiteral("boolean"))},
                                        {QStringLiteral("note"), schema::typed(QStringLiteral("string"))}},
                                       {QStringLiteral("path"), QStringLiteral("entries"), QStringLiteral("truncated")});
    list.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    list.presentation = {QStringLiteral("Listing the folder…"), QStringLiteral("Listed the folder"), false};
    registry.add(list, [ctx](const ToolCall &call) { handleList(*ctx, call); });
}

} // namespace chat2sbx
