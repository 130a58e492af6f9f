#include "tools/SandboxTools.h"

#include "config/AgentsMd.h"
#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/network/NetworkAccess.h"
#include "sandbox/ports/ExposedPort.h"
#include "sandbox/ports/ListeningProbe.h"
#include "sandbox/present/SandboxListJson.h"
#include "sandbox/present/SandboxPresenter.h"
#include "sandbox/present/SandboxSleepJson.h"
#include "tools/MemoryArgument.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

#include <memory>
#include <optional>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSandboxTools, "chat2sbx.tools.sandbox")

namespace {

constexpr int kMaxWorkspaceIdChars = 27;   // ws_ + 24 hex digits
constexpr int kMaxMemoryChars = 16;
constexpr int kMaxHostChars = 64;
constexpr qint64 kMinPort = 1;
constexpr qint64 kMaxPort = 65535;

QJsonObject portProperties()
{
    return {{QStringLiteral("sandbox_port"), schema::typed(QStringLiteral("integer"), QStringLiteral("TCP port inside the sandbox"))},
            {QStringLiteral("host_ip"), schema::str(QStringLiteral("address the host port is bound to (127.0.0.1: this machine only)"))},
            {QStringLiteral("host_port"), schema::typed(QStringLiteral("integer"), QStringLiteral("TCP port on the host"))},
            {QStringLiteral("url"), schema::str(QStringLiteral("http URL to open on the host"))},
            {QStringLiteral("lan_wide"), schema::boolean(QStringLiteral("other machines on the network can reach it"))}};
}

// Output schemas stay open (schema::result): isError results carry structuredContent too
// ({"error": ...}), and clients validate it against them.
QJsonObject summaryProperties()
{
    return {
        {QStringLiteral("sandbox_id"), schema::str(QStringLiteral("Stable id of the sandbox"))},
        {QStringLiteral("workspace_id"), schema::str(QStringLiteral("Stable id of the workspace the sandbox works on"))},
        {QStringLiteral("workspace_mode"), schema::str(QStringLiteral("managed, clone or direct"))},
        {QStringLiteral("workspace_path"), schema::str(QStringLiteral("Where the workspace is inside the sandbox (the working directory)"))},
        {QStringLiteral("state"), schema::oneOf({QStringLiteral("creating"), QStringLiteral("running"), QStringLiteral("stopped"),
                                                 QStringLiteral("destroying"), QStringLiteral("failed"), QStringLiteral("destroyed")},
                                                QStringLiteral("creating, running, stopped (asleep: the next tool call wakes it), "
                                                               "destroying, failed or destroyed"))},
        {QStringLiteral("memory"), schema::str(QStringLiteral("Memory size requested, or \"default\""))},
        {QStringLiteral("created_at"), schema::str(QStringLiteral("ISO-8601 UTC"))},
        {QStringLiteral("idle_deadline"), schema::str(QStringLiteral("ISO-8601 UTC; a running sandbox is destroyed if no tool call reaches it before then"))},
        {QStringLiteral("failure_reason"), schema::str(QStringLiteral("Why the sandbox failed (or was destroyed by idle expiry)"))},
        {QStringLiteral("ports"), schema::arrayOf(schema::result(portProperties(), {}))},
    };
}

QJsonObject summarySchema(const QJsonObject &extra = {})
{
    QJsonObject props = summaryProperties();
    const QJsonObject sleep = sleepSchemaProperties();
    for (auto it = sleep.begin(); it != sleep.end(); ++it)
        props.insert(it.key(), it.value());
    for (auto it = extra.begin(); it != extra.end(); ++it)
        props.insert(it.key(), it.value());
    return schema::result(props, {});
}

QJsonObject agentsProperty()
{
    return {{QStringLiteral("agents_md"),
             schema::str(QStringLiteral("The exact text of the user's global AGENTS.md instructions, present when that file exists: follow them"))}};
}

QJsonObject getExtraProperties()
{
    QJsonObject props = agentsProperty();
    props.insert(QStringLiteral("recent_blocked_hosts"),
                 schema::arrayOf(schema::str(QStringLiteral("host:port")),
                                 QStringLiteral("Hosts the sandbox's network policy blocked lately (newest first); ask for "
                                                "them with network_request")));
    return props;
}

QJsonObject sandboxIdProperty()
{
    return schema::id(QStringLiteral("sbx_"),
                      QStringLiteral("The sandbox_id returned by sandbox_create or sandbox_list (sbx_ followed by 24 hex digits)."));
}

bool agentsInto(const Config &config, QJsonObject &out, QString &error)
{
    std::optional<QString> text;
    if (!readGlobalAgentsFile(config.agentsFilePath(), text, error))
        return false;
    if (text)
        out.insert(QStringLiteral("agents_md"), *text);
    return true;
}

struct Context {
    SandboxService *sandboxes;
    const Config *config;
    ChannelPool *channels;
    std::shared_ptr<SandboxListJson> listJson;   // sandbox_list's summaries, kept serialized
    NetworkAccess *network = nullptr;
};

// Every sandbox tool needs sbx; when it is missing the answer says so (and a reconciliation retry runs).
void whenAvailable(const Context &c, const ToolCall &call, std::function<void()> run)
{
    QPointer<SandboxService> service(c.sandboxes);
    c.sandboxes->ensureAvailable([service, responder = call.responder, run](bool ok, const QString &error) {
        if (!service)
            return;
        if (!ok)
            return responder.error(service->publicText(error));
        run();
    });
}

// sbx can take minutes or hang (create has a 180 s timeout, then clean-up): the agent gets an answer
// after Config::sandboxAnswerWithinMs at the latest, saying the work goes on. The real outcome is
// recorded when sbx finishes and shows in sandbox_list / sandbox_get; the late answer is dropped.
void answerWithin(const Context &c, const ToolCall &call, const QString &stillRunning)
{
    QTimer::singleShot(c.config->sandboxAnswerWithinMs, c.sandboxes, [responder = call.responder, stillRunning] {
        responder.error(stillRunning);
    });
}

void sandboxCreate(const Context &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    SandboxService::CreateRequest request;
    QString memory, error;
    if (!args.string(QStringLiteral("workspace_id"), request.workspaceId, kMaxWorkspaceIdChars, false)
        || !args.string(QStringLiteral("memory"), memory, kMaxMemoryChars, false))
        return call.responder.error(args.error());
    // Which sizes sbx takes (512m to 32g in k, m or g) is more than a schema can say.
    if (call.arguments.contains(QStringLiteral("memory")) && !parseMemoryArgument(memory, request.memory, error))
        return call.responder.error(error);
    // Read before anything is created: an unreadable instructions file must not leave a sandbox behind.
    QJsonObject agents;
    if (!agentsInto(*c.config, agents, error))
        return call.responder.error(error);
    answerWithin(c, call, QStringLiteral(
        "sbx has not finished creating the sandbox after %1 s; it goes on in the background. Call sandbox_list in a "
        "minute: the sandbox shows as creating, then running (use it) or failed (with the reason; sandbox_destroy clears "
        "it). Do not call sandbox_create again for the same workspace meanwhile.").arg(c.config->sandboxAnswerWithinMs / 1000));
    whenAvailable(c, call, [c, call, request, agents] {
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
    });
}

// sandbox_get waits this long for `sbx policy log`; a slower answer goes without the blocked hosts.
constexpr int kBlockedHostsWaitMs = 3000;

void addBlockedHosts(NetworkAccess &network, const QString &id, const QJsonObject &result, const ToolResponder &responder)
{
    auto answered = std::make_shared<bool>(false);
    QTimer::singleShot(kBlockedHostsWaitMs, &network, [answered, result, responder] {
        if (!std::exchange(*answered, true))
            responder.ok(result);
    });
    network.blockedHosts(id, [answered, result, responder](const QStringList &hosts, const QString &) {
        if (std::exchange(*answered, true))
            return;
        QJsonObject out = result;
        out.insert(QStringLiteral("recent_blocked_hosts"), QJsonArray::fromStringList(hosts));
        responder.ok(out);
    });
}

void sandboxGet(const Context &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id;
    if (!args.sandboxId(id))
        return call.responder.error(args.error());
    whenAvailable(c, call, [c, call, id] {
        const auto view = c.sandboxes->get(id);
        if (!view)
            return call.responder.error(QStringLiteral("unknown sandbox_id %1").arg(id));
        QJsonObject result = sandboxJson(*view, *c.sandboxes);
        QString agentsError;
        if (!agentsInto(*c.config, result, agentsError))
            return call.responder.error(agentsError);
        if (!c.network || !view->record.isActive())
            return call.responder.ok(result);
        addBlockedHosts(*c.network, id, result, call.responder);
    });
}

void sandboxList(const Context &c, const ToolCall &call)
{
    whenAvailable(c, call, [c, call] {
        call.responder.okJson(c.listJson->listJson(c.sandboxes->list(), *c.sandboxes, c.config->maxActiveSandboxes));
    });
}

void sandboxDestroy(const Context &c, const ToolCall &call)
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
    whenAvailable(c, call, [c, call, id, force] {
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

void sandboxExpose(const Context &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id, host, error;
    qint64 sandboxPort = 0, hostPort = 0;
    if (!args.sandboxId(id) || !args.integer(QStringLiteral("port"), sandboxPort, std::nullopt)
        || !args.integer(QStringLiteral("host_port"), hostPort, 0)
        || !args.string(QStringLiteral("host"), host, kMaxHostChars, false))
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
    whenAvailable(c, call, [c, call, id, request] {
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
            RunningSandbox running;
            QString resolveError;
            if (!c.channels || !service->resolveRunning(id, running, resolveError)) {
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
        });
    });
}

} // namespace

void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config, ChannelPool *channels,
                          NetworkAccess *network)
{
    const Context c{&sandboxes, &config, channels, std::make_shared<SandboxListJson>(), network};
    auto add = [&registry](ToolDefinition d, void (*fn)(const Context &, const ToolCall &), const Context &ctx) {
        const QString name = d.name;
        if (!registry.add(d, [ctx, fn](const ToolCall &call) { fn(ctx, call); }))
            qCWarning(lcSandboxTools).noquote() << "cannot register tool" << name;
    };

    const QJsonObject memory = schema::str(QStringLiteral("Memory for the VM: a whole number with k, m or g, from 512m to 32g "
                                                          "(e.g. 512m, 4g). Omit for the default."),
                                           kMaxMemoryChars);
    const QJsonObject workspaceId = schema::id(QStringLiteral("ws_"),
                                               QStringLiteral("An existing workspace (ws_...). Omit to get a new, empty managed "
                                                              "workspace. If the workspace already has a running sandbox, that one is returned."));

    QJsonObject createExtra = agentsProperty();
    createExtra.insert(QStringLiteral("reused"), schema::boolean(QStringLiteral("true when the workspace's running sandbox was returned")));
    add({QStringLiteral("sandbox_create"), QStringLiteral("Create sandbox"),
         QStringLiteral("Use this when you need a computer to run commands, build or test code, or edit files: it starts "
                        "(or reuses) a disposable Linux microVM with its own Docker Engine, working on a workspace folder, "
                        "and returns its sandbox_id for the shell and file tools. Without workspace_id you get a new empty "
                        "workspace. If agents_md is returned, follow those instructions."),
         schema::object({{QStringLiteral("workspace_id"), workspaceId}, {QStringLiteral("memory"), memory}}, {}),
         summarySchema(createExtra),
         ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::EachCallActs, ToolReach::Sandbox), {}, {QStringLiteral("Starting the sandbox…"), QStringLiteral("Sandbox ready"), true}},
        sandboxCreate, c);

    add({QStringLiteral("sandbox_get"), QStringLiteral("Get sandbox"),
         QStringLiteral("Use this when you need the current state of one sandbox (running, failed and why, idle deadline, "
                        "exposed ports, workspace path) or the global AGENTS.md instructions again."),
         schema::object({{QStringLiteral("sandbox_id"), sandboxIdProperty()}}, {QStringLiteral("sandbox_id")}),
         summarySchema(getExtraProperties()), ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox), {}, {QStringLiteral("Looking at the sandbox…"), QStringLiteral("Looked at the sandbox"), true}},
        sandboxGet, c);

    add({QStringLiteral("sandbox_list"), QStringLiteral("List sandboxes"),
         QStringLiteral("Use this when you need to know which sandboxes exist (including failed ones and their failure "
                        "reason), for example to reuse one instead of creating another or to find one to destroy."),
         schema::object({}, {}),
         schema::result({{QStringLiteral("sandboxes"), schema::arrayOf(summarySchema())},
                         {QStringLiteral("max_active_sandboxes"),
                          QJsonObject{{QStringLiteral("description"), QStringLiteral("the limit, or \"unlimited\"")}}}},
                        {}),
         ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox), {}, {QStringLiteral("Listing the sandboxes…"), QStringLiteral("Listed the sandboxes"), true}},
        sandboxList, c);

    const QJsonObject force = schema::boolean(QStringLiteral("Destroy even when the clone's work cannot be saved to the host "
                                                             "repository first (that work is then lost). Default false."));
    add({QStringLiteral("sandbox_destroy"), QStringLiteral("Destroy sandbox"),
         QStringLiteral("Use this when you are done with a sandbox, or to clear a failed one: removes the VM and everything in "
                        "it outside the workspace. Managed workspace: the folder is kept. Direct mode: the host folder already "
                        "has every change. Clone mode: the clone lives only in the VM, so its commits and uncommitted changes "
                        "are first saved as the branch chat2sbx/<sandbox_id> in the user's repository (the result names it); "
                        "if that fails nothing is destroyed unless force is true. Safe to repeat."),
         schema::object({{QStringLiteral("sandbox_id"), sandboxIdProperty()}, {QStringLiteral("force"), force}},
                        {QStringLiteral("sandbox_id")}),
         summarySchema({{QStringLiteral("destroyed"), schema::typed(QStringLiteral("boolean"))},
                        {QStringLiteral("work_saved_on_branch"), schema::str(QStringLiteral("clone mode: the host branch holding the sandbox's work"))},
                        {QStringLiteral("work"), schema::str(QStringLiteral("what happened to the sandbox's work"))}}),
         ToolAnnotations::of(ToolEffect::Destructive, ToolRepeat::Idempotent, ToolReach::Sandbox), {}, {QStringLiteral("Destroying the sandbox…"), QStringLiteral("Destroyed the sandbox"), false}},
        sandboxDestroy, c);

    const QJsonObject port = schema::integer(QStringLiteral("The TCP port a server listens on inside the sandbox (1-65535)."),
                                             kMinPort, kMaxPort);
    const QJsonObject hostPort = schema::integer(QStringLiteral("A specific TCP port on the host (1-65535). Omit to get a free one."),
                                                 kMinPort, kMaxPort);
    const QJsonObject host = schema::str(QStringLiteral("Host address to publish on. Default 127.0.0.1 (this machine only). 0.0.0.0 "
                                                        "or a LAN address works only if the user allowed LAN exposure in chat2sbx's "
                                                        "settings."),
                                         kMaxHostChars);
    QJsonObject exposeOut = portProperties();
    exposeOut.insert(QStringLiteral("sandbox_id"), schema::str(QStringLiteral("the sandbox")));
    exposeOut.insert(QStringLiteral("already_exposed"), schema::typed(QStringLiteral("boolean")));
    exposeOut.insert(QStringLiteral("listening"),
                     schema::nullable(schema::boolean(QStringLiteral("whether something listens on the port inside the sandbox now (null: unknown)"))));
    exposeOut.insert(QStringLiteral("hint"), schema::str(QStringLiteral("what to do when nothing listens yet")));
    add({QStringLiteral("sandbox_expose"), QStringLiteral("Expose sandbox port"),
         QStringLiteral("Use this when a server runs inside the sandbox and the user should open it from their machine: "
                        "publishes the sandbox's TCP port on a host port (127.0.0.1 by default) and returns its URL and "
                        "whether anything listens there yet. Asking again returns the same mapping."),
         schema::object({{QStringLiteral("sandbox_id"), sandboxIdProperty()}, {QStringLiteral("port"), port},
                         {QStringLiteral("host"), host}, {QStringLiteral("host_port"), hostPort}},
                        {QStringLiteral("sandbox_id"), QStringLiteral("port")}),
         schema::result(exposeOut, {}),
         ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox), {}, {QStringLiteral("Publishing the port…"), QStringLiteral("Published the port"), false}},
        sandboxExpose, c);
}

} // namespace chat2sbx
