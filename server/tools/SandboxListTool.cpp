#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxListJson.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonDocument>

namespace chat2sbx {
namespace {

// A page is what a model can read at once: 10,000 sandboxes were 6.4 MB in one answer.
constexpr qint64 kDefaultListLimit = 200;
constexpr qint64 kMaxListLimit = 1000;
constexpr int kMaxCursorBytes = 128;

ToolDefinition sandboxListDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_list");
    d.title = QStringLiteral("List sandboxes");
    d.description = QStringLiteral(
        "Use this when you need to know which sandboxes exist (including failed ones and their failure reason), for "
        "example to reuse one instead of creating another or to find one to destroy. Lists the newest sandboxes (200 by "
        "default, oldest of them first); when there are more, pass next_cursor as cursor to list the older ones.");
    d.inputSchema = schema::object(
        {{QStringLiteral("limit"), schema::integer(QStringLiteral("At most this many sandboxes (1-1000, default 200)."), 1, kMaxListLimit)},
         {QStringLiteral("cursor"), schema::str(QStringLiteral("next_cursor of the previous answer: the sandboxes created before those."),
                                                kMaxCursorBytes)}},
        {});
    d.outputSchema = schema::result({{QStringLiteral("sandboxes"), schema::arrayOf(sandboxSummarySchema())},
                                     {QStringLiteral("total"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("next_cursor"), schema::str(QStringLiteral("present when older sandboxes are not listed: pass it as cursor"))},
                                     {QStringLiteral("max_active_sandboxes"),
                                      QJsonObject{{QStringLiteral("description"), QStringLiteral("the limit, or \"unlimited\"")}}},
                                     {sbxProblemProperty().first, sbxProblemProperty().second}});
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Listing the sandboxes…");
    d.presentation.invoked = QStringLiteral("Listed the sandboxes");
    d.presentation.cardView = ToolCardView::SandboxList;
    return d;
}

void runSandboxList(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    qint64 limit = 0;
    QString cursor;
    if (!args.integer(QStringLiteral("limit"), limit, kDefaultListLimit)
        || !args.string(QStringLiteral("cursor"), cursor, kMaxCursorBytes, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    qint64 cursorCreatedAt = 0;
    QString cursorId;
    if (!cursor.isEmpty() && !SandboxRepository::parseCursor(cursor, cursorCreatedAt, cursorId))
        return call.responder.error(QStringLiteral("cursor is not one sandbox_list gave: pass next_cursor as it came, or omit "
                                                   "cursor to list the newest sandboxes"));
    // The records as they are, at once, also while sbx hangs or is missing (then with why).
    const SandboxRepository::Page page{static_cast<int>(qBound<qint64>(1, limit, kMaxListLimit)), cursor};
    const int total = c.sandboxes->countListed();
    QList<SandboxView> views;
    QString next;
    if (cursor.isEmpty() && total <= page.limit) {
        views = c.sandboxes->list();   // all of them: the plain query, no page to cut
    } else {
        views = c.sandboxes->listPage(page);
        if (views.size() == page.limit) {
            const QString older = SandboxRepository::cursorOf(views.constFirst().record);
            if (!c.sandboxes->listPage({1, older}).isEmpty())
                next = older;
        }
    }
    const QByteArray json = c.listJson->listJson(views, *c.sandboxes, c.config->maxActiveSandboxes, total, next);
    const QString problem = sbxProblemNow(c);
    if (problem.isEmpty())
        return call.responder.okJson(json);
    QJsonObject out = QJsonDocument::fromJson(json).object();
    out.insert(QStringLiteral("sbx_problem"), problem);
    call.responder.ok(out);
}

} // namespace

void addSandboxListTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxListDefinition(), [context](const ToolCall &call) { runSandboxList(context, call); });
}

} // namespace chat2sbx
