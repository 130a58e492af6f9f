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

ToolDefinition sandboxListDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_list");
    d.title = QStringLiteral("List sandboxes");
    d.description = QStringLiteral(
        "Use this when you need to know which sandboxes exist (including failed ones and their failure reason), for "
        "example to reuse one instead of creating another or to find one to destroy.");
    d.inputSchema = schema::object({}, {});
    d.outputSchema = schema::result({{QStringLiteral("sandboxes"), schema::arrayOf(sandboxSummarySchema())},
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
    // The records as they are, at once, also while sbx hangs or is missing (then with why).
    const QByteArray json = c.listJson->listJson(c.sandboxes->list(), *c.sandboxes, c.config->maxActiveSandboxes);
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
