#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/changes/SandboxMover.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/sbx/SbxCloud.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QPointer>
#include <QTimer>

namespace chat2sbx {
namespace {

constexpr int kMaxMoveTtlChars = 16;

ToolDefinition sandboxMoveDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_move");
    d.title = QStringLiteral("Move a sandbox between this computer and the cloud");
    d.description = QStringLiteral(
        "Use to continue a sandbox's work in Docker's cloud (to: cloud, e.g. while this computer sleeps) or to bring it back "
        "(to: local). It keeps its sandbox_id, workspace and checkpoints; its filesystem (packages, HOME, a scratch "
        "workspace at ~/workspace) moves. It stops first: running commands end (refused unless end_running_commands). "
        "Memory, processes, published ports, network rules and secrets stay behind (the result says what to redo). A "
        "direct-mode folder cannot go to the cloud. A long move answers with state moving; sandbox_get shows the end.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("to"), schema::oneOf({QStringLiteral("cloud"), QStringLiteral("local")},
                                               QStringLiteral("cloud: Docker's cloud (billed while it runs); local: this computer"))},
         {QStringLiteral("ttl"), schema::str(QStringLiteral("To the cloud only: how long it may live there, e.g. 30m, 2h (default "
                                                            "the user's cloudDefaultTtl, at most 24h)"),
                                             kMaxMoveTtlChars)},
         {QStringLiteral("end_running_commands"),
          schema::boolean(QStringLiteral("true: commands still running in the sandbox may end (default false: refused)"))}},
        {QStringLiteral("sandbox_id"), QStringLiteral("to")});
    d.outputSchema = sandboxSummarySchema(
        {{QStringLiteral("moved_to"), schema::typed(QStringLiteral("string"))},
         {QStringLiteral("took_ms"), schema::typed(QStringLiteral("number"))},
         {QStringLiteral("carried"), schema::arrayOf(schema::typed(QStringLiteral("string")))},
         {QStringLiteral("left_behind"), schema::arrayOf(schema::typed(QStringLiteral("string")))},
         {QStringLiteral("warnings"), schema::arrayOf(schema::typed(QStringLiteral("string")))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::EachCallActs, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Moving the sandbox…");
    d.presentation.invoked = QStringLiteral("Moved the sandbox");
    return d;
}

QJsonArray publicLines(const QStringList &lines, const SandboxService &sandboxes)
{
    QJsonArray out;
    for (const QString &l : lines)
        out.append(sandboxes.publicText(l));
    return out;
}

void runSandboxMove(SandboxMover &mover, SandboxService &sandboxes, const Config &config, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id, to, ttl;
    bool endRunning = false;
    if (!args.sandboxId(id) || !args.string(QStringLiteral("to"), to, 8)
        || !args.string(QStringLiteral("ttl"), ttl, kMaxMoveTtlChars, ToolArgs::Presence::Optional)
        || !args.boolean(QStringLiteral("end_running_commands"), endRunning, false))
        return call.responder.error(args.error());
    if (to != QLatin1String("cloud") && to != QLatin1String("local"))
        return call.responder.error(QStringLiteral("to is cloud or local"));
    MoveRequest request;
    request.sandboxId = id;
    request.toCloud = to == QLatin1String("cloud");
    request.endRunningCommands = endRunning;
    if (!ttl.isEmpty() && !request.toCloud)
        return call.responder.error(QStringLiteral("ttl is for a move to the cloud; a sandbox on this computer has none"));
    if (!ttl.isEmpty() && (request.ttlSeconds = sbxDurationSeconds(ttl)) <= 0)
        return call.responder.error(QStringLiteral("ttl \"%1\" is not a duration such as 30m, 2h or 1h30m").arg(ttl));
    const ToolResponder responder = call.responder;
    QPointer<SandboxService> service(&sandboxes);
    // A move of a large filesystem takes minutes: the call answers before, and sandbox_get follows it.
    QTimer::singleShot(config.sandboxAnswerWithinMs, &mover, [responder, id, to] {
        responder.ok({{QStringLiteral("sandbox_id"), id},
                      {QStringLiteral("state"), QStringLiteral("moving")},
                      {QStringLiteral("moved_to"), to},
                      {QStringLiteral("message"), QStringLiteral("still moving: sandbox_get shows where it runs once it is done")}});
    });
    mover.move(request, [service, responder, id](const MoveOutcome &o) {
        if (!service)
            return;
        if (!o.ok)
            return responder.error(o.error);
        const std::optional<SandboxView> view = service->get(id);
        QJsonObject result = view ? sandboxJson(*view, *service) : QJsonObject{{QStringLiteral("sandbox_id"), id}};
        result.insert(QStringLiteral("moved_to"), o.placement);
        result.insert(QStringLiteral("took_ms"), double(o.tookMs));
        result.insert(QStringLiteral("carried"), publicLines(o.carried, *service));
        result.insert(QStringLiteral("left_behind"), publicLines(o.leftBehind, *service));
        result.insert(QStringLiteral("warnings"), publicLines(o.warnings, *service));
        result.insert(QStringLiteral("message"),
                      QStringLiteral("sandbox %1 now runs %2 under the same id; %3")
                          .arg(id, o.placement == QLatin1String("cloud") ? QStringLiteral("in Docker's cloud") : QStringLiteral("on this computer"),
                               o.warnings.isEmpty() ? QStringLiteral("sbx warned of nothing")
                                                    : QStringLiteral("read warnings: sbx warned of what did not move")));
        responder.ok(result);
    });
}

} // namespace

void registerSandboxMoveTool(ToolRegistry &registry, SandboxMover &mover, SandboxService &sandboxes, const Config &config)
{
    registry.add(sandboxMoveDefinition(), [&mover, &sandboxes, &config](const ToolCall &call) {
        runSandboxMove(mover, sandboxes, config, call);
    });
}

} // namespace chat2sbx
