#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/ports/ExposedPort.h"
#include "sandbox/ports/ListeningProbe.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QPointer>

#include <optional>

namespace chat2sbx {
namespace {

constexpr int kMaxExposeHostChars = 64;
constexpr qint64 kMinExposePort = 1;
constexpr qint64 kMaxExposePort = 65535;

ToolDefinition sandboxExposeDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_expose");
    d.title = QStringLiteral("Expose sandbox port");
    d.description = QStringLiteral(
        "Use this when a server runs inside the sandbox and the user should open it from their machine: publishes the "
        "sandbox's TCP port on a host port (127.0.0.1 by default) and returns its URL and whether anything listens there "
        "yet. Asking again returns the same mapping.");
    const QJsonObject port = schema::integer(QStringLiteral("The TCP port a server listens on inside the sandbox (1-65535)."),
                                             kMinExposePort, kMaxExposePort);
    const QJsonObject hostPort = schema::integer(QStringLiteral("A specific TCP port on the host (1-65535). Omit to get a free one."),
                                                 kMinExposePort, kMaxExposePort);
    const QJsonObject host = schema::str(QStringLiteral("Host address to publish on. Default 127.0.0.1 (this machine only). 0.0.0.0 "
                                                        "or a LAN address works only if the user allowed LAN exposure in chat2sbx's "
                                                        "settings."),
                                         kMaxExposeHostChars);
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), knownSandboxIdProperty()}, {QStringLiteral("port"), port},
                                    {QStringLiteral("host"), host}, {QStringLiteral("host_port"), hostPort}},
                                   {QStringLiteral("sandbox_id"), QStringLiteral("port")});
    QJsonObject result = exposedPortProperties();
    result.insert(QStringLiteral("sandbox_id"), schema::str(QStringLiteral("the sandbox")));
    result.insert(QStringLiteral("already_exposed"), schema::typed(QStringLiteral("boolean")));
    result.insert(QStringLiteral("listening"),
                  schema::nullable(schema::boolean(QStringLiteral("whether something listens on the port inside the sandbox now (null: unknown)"))));
    result.insert(QStringLiteral("hint"), schema::str(QStringLiteral("what to do when nothing listens yet")));
    d.outputSchema = schema::result(result);
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Publishing the port…");
    d.presentation.invoked = QStringLiteral("Published the port");
    return d;
}

// Adds whether something listens on the port inside the sandbox (null: unknown) and answers.
void answerWithListening(const SandboxToolContext &c, SandboxService &service, const ToolCall &call, const QString &id,
                         int port, QJsonObject result)
{
    RunningSandbox running;
    QString resolveError;
    if (!c.channels || !service.resolveRunning(id, running, resolveError)) {
        result.insert(QStringLiteral("listening"), QJsonValue::Null);
        return call.responder.ok(result);
    }
    probeListening(*c.channels, running, port, [call, result](std::optional<bool> listening) mutable {
        result.insert(QStringLiteral("listening"), listening ? QJsonValue(*listening) : QJsonValue(QJsonValue::Null));
        if (listening && !*listening)
            result.insert(QStringLiteral("hint"),
                          QStringLiteral("nothing listens on this port inside the sandbox yet: start the server "
                                         "(bound to 0.0.0.0 or 127.0.0.1) before giving the user the URL"));
        call.responder.ok(result);
    });
}

void runSandboxExpose(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id, host, error;
    qint64 sandboxPort = 0, hostPort = 0;
    if (!args.sandboxId(id) || !args.integer(QStringLiteral("port"), sandboxPort, std::nullopt)
        || !args.integer(QStringLiteral("host_port"), hostPort, 0)
        || !args.string(QStringLiteral("host"), host, kMaxExposeHostChars, ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    SandboxService::ExposeRequest request;
    request.sandboxPort = static_cast<int>(sandboxPort);
    request.hostPort = static_cast<int>(hostPort);
    // Whether a LAN address is allowed is the user's setting, not something a schema knows.
    if (call.arguments.contains(QStringLiteral("host"))) {
        if (!checkExposeHost(host, c.config->exposeAllowLan, request.hostIp, error))
            return call.responder.error(error);
        request.hostIpGiven = true;
    }
    whenSbxAvailable(c, call, [c, call, id, request] {
        QPointer<SandboxService> service(c.sandboxes);
        const int port = request.sandboxPort;
        c.sandboxes->expose(id, request, [service, c, call, id, port](const SandboxService::ExposeOutcome &o) {
            if (!service)
                return;
            if (!o.ok)
                return call.responder.error(service->publicText(
                    QStringLiteral("cannot expose port %1 of %2: %3").arg(port).arg(id, o.error)));
            QJsonObject result = portJson(presentPort(o.port.sandboxPort, o.port.hostIp, o.port.hostPort));
            result.insert(QStringLiteral("sandbox_id"), id);
            result.insert(QStringLiteral("already_exposed"), o.existing);
            answerWithListening(c, *service, call, id, port, result);
        });
    });
}

} // namespace

void addSandboxExposeTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxExposeDefinition(), [context](const ToolCall &call) { runSandboxExpose(context, call); });
}

} // namespace chat2sbx
