#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/ports/ExposedPort.h"
#include "sandbox/ports/ListeningProbe.h"
#include "sandbox/ports/PublicPorts.h"
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
        "yet. Asking again returns the same mapping. A cloud sandbox's port becomes a public HTTPS URL anyone can open: it "
        "waits for the user's approval (status waiting_for_user); call again later for the URL.");
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
    result.insert(QStringLiteral("public"), schema::boolean(QStringLiteral("a cloud sandbox's port: anyone on the internet can open the URL")));
    result.insert(QStringLiteral("status"), schema::str(QStringLiteral("a cloud port: published, waiting_for_user or publishing")));
    result.insert(QStringLiteral("approval_id"), schema::str(QStringLiteral("a cloud port: the request the user decides (pub_…)")));
    result.insert(QStringLiteral("message"), schema::str(QStringLiteral("what happens next")));
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

// A cloud sandbox's port: a public URL once the user approved it (PublicPorts).
void runCloudExpose(const SandboxToolContext &c, const ToolCall &call, const QString &id, int port)
{
    if (call.arguments.contains(QStringLiteral("host")) || call.arguments.contains(QStringLiteral("host_port")))
        return call.responder.error(QStringLiteral("%1 runs in Docker's cloud: its port becomes a public HTTPS URL, with no host "
                                                   "address or host port; call sandbox_expose with sandbox_id and port only").arg(id));
    if (!c.publicPorts)
        return call.responder.error(QStringLiteral("publishing a cloud sandbox's port needs the chat2sbx server"));
    const PublicPorts::Ask ask = c.publicPorts->request(id, port, call.clientName.left(100));
    QJsonObject result{{QStringLiteral("sandbox_id"), id}, {QStringLiteral("sandbox_port"), port}, {QStringLiteral("public"), true}};
    const PublicPortRequest &r = ask.request;
    switch (ask.status) {
    case PublicPorts::Ask::Status::Refused: return call.responder.error(ask.reason);
    case PublicPorts::Ask::Status::Rejected:
        return call.responder.error(QStringLiteral("the user did not allow port %1 of %2 on the internet (%3): do not ask again unless "
                                                   "the user says so in the chat").arg(port).arg(id, r.id));
    case PublicPorts::Ask::Status::Failed:
        return call.responder.error(c.sandboxes->publicText(
            QStringLiteral("publishing port %1 of %2 failed: %3").arg(port).arg(id, r.error)));
    case PublicPorts::Ask::Status::Published:
        result.insert(QStringLiteral("status"), QStringLiteral("published"));
        result.insert(QStringLiteral("url"), r.url);
        result.insert(QStringLiteral("already_exposed"), true);
        result.insert(QStringLiteral("message"), QStringLiteral("anyone with this URL can open it: add authentication in the service, "
                                                                "and sandbox_unexpose the port when it is no longer needed"));
        return call.responder.ok(result);
    case PublicPorts::Ask::Status::Waiting:
    case PublicPorts::Ask::Status::Publishing:
        break;
    }
    const bool waiting = ask.status == PublicPorts::Ask::Status::Waiting;
    result.insert(QStringLiteral("status"), waiting ? QStringLiteral("waiting_for_user") : QStringLiteral("publishing"));
    result.insert(QStringLiteral("approval_id"), r.id);
    result.insert(QStringLiteral("already_exposed"), false);
    result.insert(QStringLiteral("message"),
                  waiting ? QStringLiteral("the port would be open to anyone on the internet, so the user must approve it in chat2sbx "
                                           "(approval %1). Tell the user, then call sandbox_expose again for the URL").arg(r.id)
                          : QStringLiteral("approved: the cloud is publishing it; call sandbox_expose again in a few seconds for the URL"));
    call.responder.ok(result);
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
    if (const std::optional<SandboxView> v = c.sandboxes->get(id); v && v->record.isCloud())
        return runCloudExpose(c, call, id, static_cast<int>(sandboxPort));
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
