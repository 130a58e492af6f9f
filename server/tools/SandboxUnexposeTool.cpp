#include "tools/SandboxTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/ports/PublicPorts.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QPointer>

namespace chat2sbx {
namespace {

ToolDefinition sandboxUnexposeDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_unexpose");
    d.title = QStringLiteral("Unpublish sandbox port");
    d.description = QStringLiteral(
        "Use this when a cloud sandbox's public URL (from sandbox_expose) is no longer needed: takes the port off the internet.");
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), knownSandboxIdProperty()},
         {QStringLiteral("port"), schema::integer(QStringLiteral("The TCP port inside the sandbox that was published."), 1, 65535)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("port")});
    d.outputSchema = schema::result({{QStringLiteral("sandbox_id"), schema::str(QStringLiteral("the sandbox"))},
                                     {QStringLiteral("sandbox_port"), schema::typed(QStringLiteral("integer"))},
                                     {QStringLiteral("status"), schema::str(QStringLiteral("unpublished"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Unpublishing the port…");
    d.presentation.invoked = QStringLiteral("Unpublished the port");
    return d;
}

void runSandboxUnexpose(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id;
    qint64 port = 0;
    if (!args.sandboxId(id) || !args.integer(QStringLiteral("port"), port, std::nullopt))
        return call.responder.error(args.error());
    const std::optional<SandboxView> v = c.sandboxes->get(id);
    if (!v || v->record.state == SandboxState::Destroyed)
        return call.responder.error(QStringLiteral("unknown sandbox_id %1").arg(id));
    if (!v->record.isCloud())
        return call.responder.error(QStringLiteral("%1 runs on this computer: its exposed ports stay on this machine until it is "
                                                   "destroyed; only a cloud sandbox's public port is unpublished").arg(id));
    if (!c.publicPorts)
        return call.responder.error(QStringLiteral("unpublishing a cloud sandbox's port needs the chat2sbx server"));
    QPointer<SandboxService> service(c.sandboxes);
    c.publicPorts->unpublish(id, v->record.runtimeName, static_cast<int>(port), [service, call, id, port](const QString &error) {
        if (!error.isEmpty())
            return call.responder.error(service ? service->publicText(error) : error);
        call.responder.ok(QJsonObject{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("sandbox_port"), port},
                                      {QStringLiteral("status"), QStringLiteral("unpublished")}});
    });
}

} // namespace

void addSandboxUnexposeTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxUnexposeDefinition(), [context](const ToolCall &call) { runSandboxUnexpose(context, call); });
}

} // namespace chat2sbx
