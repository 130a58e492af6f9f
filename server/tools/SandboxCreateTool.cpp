#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/MemoryArgument.h"
#include "sandbox/sbx/SbxCloud.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QPointer>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kMaxWorkspaceIdChars = 27;   // ws_ + 24 hex digits
constexpr int kMaxMemoryChars = 16;
constexpr int kMaxTtlChars = 16;

// Where a create without `placement` goes: defaultPlacement; `auto` is the cloud (when the user turned
// cloud sandboxes on) while local sbx cannot run sandboxes here or the local limit is reached.
QString placementFor(const SandboxToolContext &c, const QString &asked)
{
    if (!asked.isEmpty())
        return asked;
    const Config &config = *c.config;
    if (config.defaultPlacement != QLatin1String("auto"))
        return config.defaultPlacement;
    if (!config.cloudSandboxes)
        return QStringLiteral("local");
    int local = 0;
    for (const SandboxView &v : c.sandboxes->list())
        local += !v.record.isCloud() && v.record.isActive() ? 1 : 0;
    const bool localFull = config.maxActiveSandboxes > 0 && local >= config.maxActiveSandboxes;
    return !c.sandboxes->reconciler().isSbxAvailable() || localFull ? QStringLiteral("cloud") : QStringLiteral("local");
}

ToolDefinition sandboxCreateDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_create");
    d.title = QStringLiteral("Create sandbox");
    d.description = QStringLiteral(
        "Use this when you need a computer to run commands, build or test code, or edit files: it starts (or reuses) a "
        "disposable Linux microVM with its own Docker Engine, working on a workspace folder, and returns its sandbox_id "
        "for the shell and file tools. Without workspace_id you get a new empty workspace. If agents_md is returned, "
        "follow those instructions. placement cloud (when the user allows it) runs it in Docker's cloud instead of this "
        "computer: billed while it runs, a size instead of memory, a time-to-live (default 1h, at most 24h), and its files "
        "live only in its VM there (no host folder).");
    const QJsonObject memory = schema::str(QStringLiteral("Memory for the VM: a whole number with k, m or g, from 512m to 32g "
                                                          "(e.g. 512m, 4g). Omit for the default."),
                                           kMaxMemoryChars);
    const QJsonObject workspaceId = schema::id(QStringLiteral("ws_"),
                                               QStringLiteral("An existing workspace (ws_...). Omit to get a new, empty managed "
                                                              "workspace. If the workspace already has a running sandbox, that one is returned."));
    d.inputSchema = schema::object(
        {{QStringLiteral("workspace_id"), workspaceId},
         {QStringLiteral("memory"), memory},
         {QStringLiteral("placement"), schema::oneOf({QStringLiteral("local"), QStringLiteral("cloud")},
                                                     QStringLiteral("Where it runs: this computer (local) or Docker's cloud. Omit for the "
                                                                    "user's default"))},
         {QStringLiteral("size"), schema::oneOf({QStringLiteral("micro"), QStringLiteral("small"), QStringLiteral("medium"),
                                                 QStringLiteral("large"), QStringLiteral("xl")},
                                                QStringLiteral("Cloud only: micro 1 CPU/2 GiB, small 2/4 (default), medium 4/8, large "
                                                               "8/16, xl 16/32"))},
         {QStringLiteral("ttl"), schema::str(QStringLiteral("Cloud only: how long it may live, e.g. 30m, 2h (default 1h, at most 24h "
                                                            "from creation; chat2sbx extends it while it is used)"),
                                             kMaxTtlChars)}},
        {});
    QJsonObject extra = agentsMdProperty();
    extra.insert(QStringLiteral("reused"), schema::boolean(QStringLiteral("true when the workspace's running sandbox was returned")));
    d.outputSchema = sandboxSummarySchema(extra);
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Starting the sandbox…");
    d.presentation.invoked = QStringLiteral("Sandbox ready");
    d.presentation.cardView = ToolCardView::Sandbox;
    return d;
}

void runSandboxCreate(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    SandboxService::CreateRequest request;
    QString memory, error, placement, ttl;
    if (!args.string(QStringLiteral("workspace_id"), request.workspaceId, kMaxWorkspaceIdChars,
                     ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("memory"), memory, kMaxMemoryChars, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("placement"), placement, 8, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("size"), request.size, 8, ToolArgs::Presence::Optional)
        || !args.string(QStringLiteral("ttl"), ttl, kMaxTtlChars, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    if (!placement.isEmpty() && placement != QLatin1String("local") && placement != QLatin1String("cloud"))
        return call.responder.error(QStringLiteral("placement must be local or cloud"));
    request.placement = placementFor(c, placement);
    const bool cloud = request.placement == QLatin1String("cloud");
    if (!cloud && (!request.size.isEmpty() || !ttl.isEmpty()))
        return call.responder.error(QStringLiteral("size and ttl are for a cloud sandbox (placement cloud); a local one takes memory"));
    if (!ttl.isEmpty() && (request.ttlSeconds = sbxDurationSeconds(ttl)) <= 0)
        return call.responder.error(QStringLiteral("ttl \"%1\" is not a duration such as 30m, 2h or 1h30m").arg(ttl.left(kMaxTtlChars)));
    // Which sizes sbx takes (512m to 32g in k, m or g) is more than a schema can say.
    if (call.arguments.contains(QStringLiteral("memory")) && !parseMemoryArgument(memory, request.memory, error))
        return call.responder.error(error);
    // Read before anything is created: an unreadable instructions file must not leave a sandbox behind.
    QJsonObject agents;
    if (!insertAgentsMd(*c.config, agents, error))
        return call.responder.error(error);
    answerWithin(c, call, QStringLiteral(
        "sbx has not finished creating the sandbox after %1 s; it goes on in the background. Call sandbox_list in a "
        "minute: the sandbox shows as creating, then running (use it) or failed (with the reason; sandbox_destroy clears "
        "it). Do not call sandbox_create again for the same workspace meanwhile.").arg(c.config->sandboxAnswerWithinMs / 1000));
    const auto create = [c, call, request, agents] {
        QPointer<SandboxService> service(c.sandboxes);
        c.sandboxes->create(request, [service, call, agents](const SandboxService::Outcome &o) {
            if (!service)
                return;
            if (!o.ok) {
                QJsonObject details;
                if (!o.view.record.id.isEmpty())
                    details = sandboxJson(o.view, *service);
                return call.responder.error(service->publicText(o.error), details);
            }
            QJsonObject result = sandboxJson(o.view, *service);
            result.insert(QStringLiteral("reused"), o.reused);
            for (auto it = agents.begin(); it != agents.end(); ++it)
                result.insert(it.key(), it.value());
            call.responder.ok(result);
        });
    };
    if (cloud)
        return create();   // the cloud answers for itself: local sbx need not be usable here
    whenSbxAvailable(c, call, create);
}

} // namespace

void addSandboxCreateTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxCreateDefinition(), [context](const ToolCall &call) { runSandboxCreate(context, call); });
}

} // namespace chat2sbx
