#include "tools/FileTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/channel/ChannelPool.h"
#include "sandbox/channel/SandboxChannel.h"
#include "tools/DiffPaths.h"
#include "tools/EditPlan.h"
#include "tools/FileToolSupport.h"
#include "tools/InSandboxSupport.h"
#include "tools/ToolArgs.h"
#include "tools/UnifiedDiff.h"

#include <QPointer>

namespace chat2sbx {
namespace {

constexpr int kMaxEditStringBytes = 1024 * 1024;

ToolDefinition editDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("edit");
    d.title = QStringLiteral("Edit a file");
    d.description = QStringLiteral(
        "Use for a small change to a text file: replaces an exact string. old_string must match exactly once unless "
        "replace_all is true or expected_replacements gives the count; otherwise the call fails and says how many "
        "matches there are. Returns a short diff and the new sha256.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("path"), sandboxPathProperty()},
         {QStringLiteral("old_string"), schema::str(QStringLiteral("Exact text to replace"))},
         {QStringLiteral("new_string"), schema::str(QStringLiteral("Replacement text"))},
         {QStringLiteral("replace_all"), schema::boolean(QStringLiteral("Replace every match (default false)"))},
         {QStringLiteral("expected_replacements"), schema::integer(QStringLiteral("Fail unless old_string matches exactly this many times; all are replaced"), 1, 1000000)},
         {QStringLiteral("expected_sha256"), expectedShaProperty()}},
        {QStringLiteral("sandbox_id"), QStringLiteral("path"), QStringLiteral("old_string"), QStringLiteral("new_string")});
    d.outputSchema = schema::result({{QStringLiteral("path"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("replacements"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("sha256"), schema::typed(QStringLiteral("string"))},
                                     {QStringLiteral("diff"), schema::typed(QStringLiteral("string"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Editing the file…");
    d.presentation.invoked = QStringLiteral("Edited the file");
    d.presentation.cardView = ToolCardView::Diff;
    d.presentation.payloadFields = {QStringLiteral("diff")};
    return d;
}

// Why the plan cannot be carried out (empty when it can).
QString editRefusal(const EditPlan &plan, const QString &shown, qint64 expectedCount)
{
    if (expectedCount && plan.matches && plan.matches != expectedCount)
        return QStringLiteral("old_string matches %1 times in %2, not the expected %3; nothing was edited")
            .arg(plan.matches).arg(shown).arg(expectedCount);
    switch (plan.outcome) {
    case EditPlan::Outcome::NotFound:
        return QStringLiteral("old_string was not found in %1 (0 matches)").arg(shown);
    case EditPlan::Outcome::Ambiguous:
        return QStringLiteral("old_string matches %1 times in %2; include more context to make it unique, or set "
                              "replace_all to replace every match").arg(plan.matches).arg(shown);
    case EditPlan::Outcome::TooLarge:
        return QStringLiteral("the edited file would be %1 bytes (%2 replacements), larger than the %3-byte limit; "
                              "replace fewer matches or use a shorter new_string")
            .arg(plan.resultBytes).arg(plan.matches).arg(kMaxFileWriteBytes);
    case EditPlan::Outcome::Ok:
        break;
    }
    return QString();
}

void runEdit(SandboxResolver &resolver, ChannelPool &channels, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString path, oldString, newString, expected;
    bool replaceAll = false;
    qint64 expectedCount = 0;
    if (!args.string(QStringLiteral("path"), path, kMaxSandboxPathBytes)
        || !args.string(QStringLiteral("old_string"), oldString, kMaxEditStringBytes)
        || !args.string(QStringLiteral("new_string"), newString, kMaxEditStringBytes,
                        ToolArgs::Presence::RequiredMayBeEmpty)
        || !args.boolean(QStringLiteral("replace_all"), replaceAll, false)
        || !args.integer(QStringLiteral("expected_replacements"), expectedCount, 0))
        return call.responder.error(args.error());
    if (!readExpectedSha(call, args, expected))
        return;
    if (oldString == newString)
        return call.responder.error(QStringLiteral("no change: old_string and new_string are equal"));
    RunningSandbox sandbox;
    if (!resolveSandboxChannel(resolver, channels, call, args, sandbox))
        return;
    const QString shown = displayPath(sandbox, path);
    QPointer<SandboxChannel> channel = &channels.channelFor(sandbox);
    const QByteArray oldBytes = oldString.toUtf8(), newBytes = newString.toUtf8();
    channel->request(
        QStringLiteral("get"), {path.toUtf8(), QByteArray::number(kMaxFileEditBytes)}, kFileRequestTimeoutMs,
        [responder = call.responder, shown, headerPath = diffHeaderPath(sandbox.workspacePath, sandbox.managedWorkspace, path),
         path, channel, oldBytes, newBytes, replaceAll, expected, expectedCount](const ChannelReply &r) {
            if (!r.ok)
                return responder.error(replyFailure(r));
            const QString currentSha = r.meta.value(QStringLiteral("sha256"));
            if (!expected.isEmpty() && currentSha != expected)
                return responder.error(QStringLiteral("%1 has changed: its sha256 is %2, not %3; nothing was edited. Read it "
                                                      "again before editing.").arg(shown, currentSha, expected),
                                       {{QStringLiteral("current_sha256"), currentSha}});
            if (r.meta.value(QStringLiteral("binary")) == QLatin1String("1"))
                return responder.error(QStringLiteral("%1 is a binary file; edit only changes text files").arg(shown));
            const QByteArray &before = r.data;
            const EditPlan plan = planEdit(before, oldBytes, newBytes, replaceAll || expectedCount > 0, kMaxFileWriteBytes);
            const QString refusal = editRefusal(plan, shown, expectedCount);
            if (!refusal.isEmpty())
                return responder.error(refusal);
            if (!channel)
                return responder.error(QStringLiteral("the sandbox was detached during the edit"));
            const QString diff = replacementDiff(headerPath, before, oldBytes, newBytes);
            const int count = static_cast<int>(plan.matches);
            // The write only succeeds if the file is still what was edited.
            const QString newSha = sha256Hex(plan.after);
            writeSandboxFile(*channel, path, currentSha.toLatin1(), plan.after, [responder, shown, diff, count, newSha](const ChannelReply &w) {
                if (!w.ok && w.code == QLatin1String("estale"))
                    return responder.error(QStringLiteral("%1 changed while it was being edited; nothing was edited. Try again.")
                                               .arg(shown));
                if (!w.ok)
                    return responder.error(replyFailure(w));
                responder.ok({{QStringLiteral("path"), shown},
                              {QStringLiteral("replacements"), count},
                              {QStringLiteral("sha256"), newSha},
                              {QStringLiteral("diff"), diff}});
            });
        });
}

} // namespace

void addEditTool(ToolRegistry &registry, SandboxResolver &resolver, ChannelPool &channels)
{
    registry.add(editDefinition(), [&resolver, &channels](const ToolCall &call) { runEdit(resolver, channels, call); });
}

} // namespace chat2sbx
