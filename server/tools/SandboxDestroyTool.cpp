#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QPointer>

namespace chat2sbx {
namespace {

ToolDefinition sandboxDestroyDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_destroy");
    d.title = QStringLiteral("Destroy sandbox");
    d.description = QStringLiteral(
        "Use this when you are done with a sandbox, or to clear a failed one: removes the VM and everything in it outside "
        "the workspace. Managed workspace: the folder is kept. Direct mode: the host folder already has every change. "
        "Clone mode: the clone lives only in the VM, so its commits and uncommitted changes are first saved as the branch "
        "chat2sbx/<sandbox_id> in the user's repository (the result names it); if that fails nothing is destroyed unless "
        "force is true. Safe to repeat.");
    const QJsonObject force = schema::boolean(QStringLiteral("Destroy even when the clone's work cannot be saved to the host "
                                                             "repository first (that work is then lost). Default false."));
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), knownSandboxIdProperty()}, {QStringLiteral("force"), force}},
                                   {QStringLiteral("sandbox_id")});
    d.outputSchema = sandboxSummarySchema(
        {{QStringLiteral("destroyed"), schema::typed(QStringLiteral("boolean"))},
         {QStringLiteral("work_saved_on_branch"), schema::str(QStringLiteral("clone mode: the host branch holding the sandbox's work"))},
         {QStringLiteral("work"), schema::str(QStringLiteral("what happened to the sandbox's work"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Destroying the sandbox…");
    d.presentation.invoked = QStringLiteral("Destroyed the sandbox");
    return d;
}

void runSandboxDestroy(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id;
    bool force = false;
    if (!args.sandboxId(id) || !args.boolean(QStringLiteral("force"), force, false))
        return call.responder.error(args.error());
    answerWithin(c, call, QStringLiteral(
        "sbx has not finished removing sandbox %1 after %2 s; it goes on in the background. sandbox_get shows it as "
        "destroying, then destroyed, or failed with the reason (then call sandbox_destroy again).")
        .arg(id).arg(c.config->sandboxAnswerWithinMs / 1000));
    whenSbxAvailable(c, call, [c, call, id, force] {
        QPointer<SandboxService> service(c.sandboxes);
        c.sandboxes->destroy(id, [service, call](const SandboxService::Outcome &o) {
            if (!service)
                return;
            if (!o.ok)
                return call.responder.error(service->publicText(o.error));
            QJsonObject result = sandboxJson(o.view, *service);
            result.insert(QStringLiteral("destroyed"), true);
            if (!o.keptBranch.isEmpty())
                result.insert(QStringLiteral("work_saved_on_branch"), o.keptBranch);
            if (!o.keptSummary.isEmpty())
                result.insert(QStringLiteral("work"), service->publicText(o.keptSummary));
            call.responder.ok(result);
        }, {}, force);
    });
}

} // namespace

void addSandboxDestroyTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxDestroyDefinition(), [context](const ToolCall &call) { runSandboxDestroy(context, call); });
}

} // namespace chat2sbx
