#include "tools/SandboxTools.h"

#include "config/Config.h"
#include "mcp/ToolRegistry.h"
#include "core/Clock.h"
#include "core/Ids.h"
#include "sandbox/ExposedPort.h"
#include "sandbox/ListeningProbe.h"
#include "sandbox/SandboxService.h"
#include "tools/SandboxSleepJson.h"
#include "tools/SandboxToolArgs.h"

#include <QJsonArray>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

#include <optional>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcSandboxTools, "chat2sbx.tools.sandbox")

namespace {

QJsonObject str(const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("description"), description}};
}

QJsonObject integer(const QString &description)
{
    return {{QStringLiteral("type"), QStringLiteral("integer")}, {QStringLiteral("description"), description}};
}

QJsonObject sandboxIdProperty()
{
    QJsonObject p = str(QStringLiteral("The sandbox_id returned by sandbox_create or sandbox_list (sbx_ followed by 24 hex digits)."));
    p.insert(QStringLiteral("pattern"), QStringLiteral("^sbx_[0-9a-f]{24}$"));
    p.insert(QStringLiteral("maxLength"), 28);
    return p;
}

QJsonObject objectSchema(const QJsonObject &properties, const QStringList &required = {})
{
    QJsonObject s{{QStringLiteral("type"), QStringLiteral("object")},
                  {QStringLiteral("properties"), properties},
                  {QStringLiteral("additionalProperties"), false}};
    if (!required.isEmpty())
        s.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
    return s;
}

QJsonObject portProperties()
{
    return {{QStringLiteral("sandbox_port"), integer(QStringLiteral("TCP port inside the sandbox"))},
            {QStringLiteral("host_ip"), str(QStringLiteral("address the host port is bound to (127.0.0.1: this machine only)"))},
            {QStringLiteral("host_port"), integer(QStringLiteral("TCP port on the host"))},
            {QStringLiteral("url"), str(QStringLiteral("http URL to open on the host"))},
            {QStringLiteral("lan_wide"), QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                                                     {QStringLiteral("description"), QStringLiteral("other machines on the network can reach it")}}}};
}

// Output schemas stay open (no additionalProperties false) and name no required fields: isError
// results carry structuredContent too ({"error": ...}), and clients validate it against them.
QJsonObject summarySchemaProperties()
{
    QJsonObject stateProp = str(QStringLiteral("creating, running, stopped (asleep: wakes on the next tool call), destroying, "
                                               "failed or destroyed"));
    stateProp.insert(QStringLiteral("enum"), QJsonArray{QStringLiteral("creating"), QStringLiteral("running"),
                                                        QStringLiteral("stopped"), QStringLiteral("destroying"),
                                                        QStringLiteral("failed"), QStringLiteral("destroyed")});
    QJsonObject port = QJsonObject{
        {QStringLiteral("type"), QStringLiteral("object")},
        {QStringLiteral("properties"), portProperties()},
    };
    return {
        {QStringLiteral("sandbox_id"), str(QStringLiteral("Stable id of the sandbox"))},
        {QStringLiteral("workspace_id"), str(QStringLiteral("Stable id of the workspace the sandbox works on"))},
        {QStringLiteral("workspace_mode"), str(QStringLiteral("managed, clone or direct"))},
        {QStringLiteral("workspace_path"), str(QStringLiteral("Where the workspace is inside the sandbox (the working directory)"))},
        {QStringLiteral("state"), stateProp},
        {QStringLiteral("memory"), str(QStringLiteral("Memory size requested, or \"default\""))},
        {QStringLiteral("created_at"), str(QStringLiteral("ISO-8601 UTC"))},
        {QStringLiteral("idle_deadline"), str(QStringLiteral("ISO-8601 UTC; a running sandbox is destroyed if no tool call reaches it before then"))},
        {QStringLiteral("failure_reason"), str(QStringLiteral("Why the sandbox failed (or was destroyed by idle expiry)"))},
        {QStringLiteral("ports"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), port}}},
    };
}

QJsonObject summarySchema(const QJsonObject &extra = {})
{
    QJsonObject props = summarySchemaProperties();
    const QJsonObject sleep = sleepSchemaProperties();
    for (auto it = sleep.begin(); it != sleep.end(); ++it)
        props.insert(it.key(), it.value());
    for (auto it = extra.begin(); it != extra.end(); ++it)
        props.insert(it.key(), it.value());
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), props}};
}

QJsonObject agentsProperty()
{
    return {{QStringLiteral("agents_md"),
             str(QStringLiteral("The exact text of the user's global AGENTS.md instructions, present when that file exists: follow them"))}};
}

bool sandboxIdArgument(const QJsonObject &args, QString &id, QString &error)
{
    const QJsonValue v = args.value(QStringLiteral("sandbox_id"));
    if (!v.isString()) {
        error = QStringLiteral("sandbox_id is required and must be a string");
        return false;
    }
    id = v.toString();
    if (!isWellFormedId(id, "sbx_")) {
        error = QStringLiteral("unknown sandbox_id \"%1\" (sandbox ids look like sbx_ followed by 24 hex digits)")
                    .arg(id.size() > 40 ? id.left(40) + QStringLiteral("…") : id);
        return false;
    }
    return true;
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
    QString error;
    const QJsonObject &args = call.arguments;
    if (!onlyKnownArguments(args, {QStringLiteral("workspace_id"), QStringLiteral("memory")}, error))
        return call.responder.error(error);
    SandboxService::CreateRequest request;
    if (args.contains(QStringLiteral("workspace_id"))) {
        const QJsonValue v = args.value(QStringLiteral("workspace_id"));
        if (!v.isString() || !isWellFormedId(v.toString(), "ws_"))
            return call.responder.error(QStringLiteral("unknown workspace_id (workspace ids look like ws_ followed by 24 hex digits)"));
        request.workspaceId = v.toString();
    }
    if (args.contains(QStringLiteral("memory"))) {
        const QJsonValue v = args.value(QStringLiteral("memory"));
        if (!v.isString())
            return call.responder.error(QStringLiteral("invalid memory: must be a string like 512m or 4g"));
        if (!parseMemoryArgument(v.toString(), request.memory, error))
            return call.responder.error(error);
    }
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
                    details = sandboxSummary(o.view, *service);
                return call.responder.error(service->publicText(o.error), details);
            }
            QJsonObject result = sandboxSummary(o.view, *service);
            result.insert(QStringLiteral("reused"), o.reused);
            for (auto it = agents.begin(); it != agents.end(); ++it)
                result.insert(it.key(), it.value());
            call.responder.ok(result);
        });
    });
}

void sandboxGet(const Context &c, const ToolCall &call)
{
    QString id, error;
    if (!onlyKnownArguments(call.arguments, {QStringLiteral("sandbox_id")}, error) ||
        !sandboxIdArgument(call.arguments, id, error))
        return call.responder.error(error);
    whenAvailable(c, call, [c, call, id] {
        const auto view = c.sandboxes->get(id);
        if (!view)
            return call.responder.error(QStringLiteral("unknown sandbox_id %1").arg(id));
        QJsonObject result = sandboxSummary(*view, *c.sandboxes);
        QString agentsError;
        if (!agentsInto(*c.config, result, agentsError))
            return call.responder.error(agentsError);
        call.responder.ok(result);
    });
}

void sandboxList(const Context &c, const ToolCall &call)
{
    QString error;
    if (!onlyKnownArguments(call.arguments, {}, error))
        return call.responder.error(error);
    whenAvailable(c, call, [c, call] {
        QJsonArray items;
        for (const SandboxView &v : c.sandboxes->list())
            items.append(sandboxSummary(v, *c.sandboxes));
        call.responder.ok({{QStringLiteral("sandboxes"), items},
                           {QStringLiteral("max_active_sandboxes"),
                            c.config->maxActiveSandboxes > 0 ? QJsonValue(c.config->maxActiveSandboxes) : QJsonValue(QStringLiteral("unlimited"))}});
    });
}

void sandboxDestroy(const Context &c, const ToolCall &call)
{
    QString id, error;
    if (!onlyKnownArguments(call.arguments, {QStringLiteral("sandbox_id"), QStringLiteral("force")}, error) ||
        !sandboxIdArgument(call.arguments, id, error))
        return call.responder.error(error);
    const QJsonValue forceValue = call.arguments.value(QStringLiteral("force"));
    if (!forceValue.isUndefined() && !forceValue.isBool())
        return call.responder.error(QStringLiteral("force must be true or false"));
    const bool force = forceValue.toBool(false);
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
            QJsonObject result = sandboxSummary(o.view, *service);
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
    QString id, error;
    const QJsonObject &args = call.arguments;
    if (!onlyKnownArguments(args, {QStringLiteral("sandbox_id"), QStringLiteral("port"), QStringLiteral("host"),
                                   QStringLiteral("host_port")}, error) ||
        !sandboxIdArgument(args, id, error))
        return call.responder.error(error);
    auto portArg = [&args](const char *name, int &out) {
        const QJsonValue v = args.value(QLatin1String(name));
        const double d = v.toDouble(-1);
        if (!v.isDouble() || d != static_cast<double>(static_cast<qint64>(d)) || d < 1 || d > 65535)
            return false;
        out = static_cast<int>(d);
        return true;
    };
    SandboxService::ExposeRequest request;
    if (!portArg("port", request.sandboxPort))
        return call.responder.error(QStringLiteral("port must be an integer from 1 to 65535"));
    if (args.contains(QStringLiteral("host_port")) && !portArg("host_port", request.hostPort))
        return call.responder.error(QStringLiteral("host_port must be an integer from 1 to 65535"));
    if (args.contains(QStringLiteral("host"))) {
        const QJsonValue hv = args.value(QStringLiteral("host"));
        if (!hv.isString())
            return call.responder.error(QStringLiteral("host must be a string such as 127.0.0.1"));
        if (!checkExposeHost(hv.toString(), c.config->exposeAllowLan, request.hostIp, error))
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
            QJsonObject result = portJson(o.port.sandboxPort, o.port.hostIp, o.port.hostPort);
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

QJsonObject sandboxSummary(const SandboxView &view, const SandboxService &sandboxes)
{
    const SandboxRecord &r = view.record;
    QJsonObject o{
        {QStringLiteral("sandbox_id"), r.id},
        {QStringLiteral("workspace_id"), r.workspaceId},
        {QStringLiteral("state"), sandboxStateName(r.state)},
        {QStringLiteral("memory"), r.memory.isEmpty() ? QStringLiteral("default") : r.memory},
        {QStringLiteral("created_at"), isoTime(r.createdAt)},
    };
    if (view.workspace) {
        o.insert(QStringLiteral("workspace_mode"), workspaceModeName(view.workspace->mode));
        o.insert(QStringLiteral("workspace_path"), view.workspace->pathInSandbox());
    }
    if (r.state == SandboxState::Running && r.idleDeadline > 0)
        o.insert(QStringLiteral("idle_deadline"), isoTime(r.idleDeadline));
    if (!r.reason.isEmpty())
        o.insert(QStringLiteral("failure_reason"), sandboxes.publicText(r.reason));
    QJsonArray ports;
    for (const SandboxPortRecord &p : view.ports)
        ports.append(portJson(p.sandboxPort, p.hostIp, p.hostPort));
    o.insert(QStringLiteral("ports"), ports);
    insertSleepFields(o, view);
    return o;
}

QJsonObject portJson(int sandboxPort, const QString &hostIp, int hostPort)
{
    return {{QStringLiteral("sandbox_port"), sandboxPort},
            {QStringLiteral("host_ip"), hostIp},
            {QStringLiteral("host_port"), hostPort},
            {QStringLiteral("url"), exposedPortUrl(hostIp, hostPort)},
            {QStringLiteral("lan_wide"), isLanWide(hostIp)}};
}

void registerSandboxTools(ToolRegistry &registry, SandboxService &sandboxes, const Config &config, ChannelPool *channels)
{
    const Context c{&sandboxes, &config, channels};
    auto add = [&registry](ToolDefinition d, void (*fn)(const Context &, const ToolCall &), const Context &ctx) {
        const QString name = d.name;
        if (!registry.add(d, [ctx, fn](const ToolCall &call) { fn(ctx, call); }))
            qCWarning(lcSandboxTools).noquote() << "cannot register tool" << name;
    };

    QJsonObject memory = str(QStringLiteral("Memory for the VM: a whole number with k, m or g, from 512m to 32g (e.g. 512m, 4g). "
                                            "Omit for the default."));
    memory.insert(QStringLiteral("maxLength"), 16);
    QJsonObject workspaceId = str(QStringLiteral("An existing workspace (ws_...). Omit to get a new, empty managed workspace. "
                                                 "If the workspace already has a running sandbox, that one is returned."));
    workspaceId.insert(QStringLiteral("pattern"), QStringLiteral("^ws_[0-9a-f]{24}$"));
    workspaceId.insert(QStringLiteral("maxLength"), 27);

    QJsonObject createExtra = agentsProperty();
    createExtra.insert(QStringLiteral("reused"),
                       QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")},
                                   {QStringLiteral("description"), QStringLiteral("true when the workspace's running sandbox was returned")}});
    add({QStringLiteral("sandbox_create"), QStringLiteral("Create sandbox"),
         QStringLiteral("Use this when you need a computer to run commands, build or test code, or edit files: it starts "
                        "(or reuses) a disposable Linux microVM with its own Docker Engine, working on a workspace folder, "
                        "and returns its sandbox_id for the shell and file tools. Without workspace_id you get a new empty "
                        "workspace. If agents_md is returned, follow those instructions."),
         objectSchema({{QStringLiteral("workspace_id"), workspaceId}, {QStringLiteral("memory"), memory}}),
         summarySchema(createExtra),
         {false, false, false, false}},
        sandboxCreate, c);

    add({QStringLiteral("sandbox_get"), QStringLiteral("Get sandbox"),
         QStringLiteral("Use this when you need the current state of one sandbox (running, failed and why, idle deadline, "
                        "exposed ports, workspace path) or the global AGENTS.md instructions again."),
         objectSchema({{QStringLiteral("sandbox_id"), sandboxIdProperty()}}, {QStringLiteral("sandbox_id")}),
         summarySchema(agentsProperty()), {true, false, true, false}},
        sandboxGet, c);

    add({QStringLiteral("sandbox_list"), QStringLiteral("List sandboxes"),
         QStringLiteral("Use this when you need to know which sandboxes exist (including failed ones and their failure "
                        "reason), for example to reuse one instead of creating another or to find one to destroy."),
         objectSchema({}),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                     {QStringLiteral("properties"),
                      QJsonObject{{QStringLiteral("sandboxes"), QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                                            {QStringLiteral("items"), summarySchema()}}},
                                  {QStringLiteral("max_active_sandboxes"),
                                   QJsonObject{{QStringLiteral("description"), QStringLiteral("the limit, or \"unlimited\"")}}}}}},
         {true, false, true, false}},
        sandboxList, c);

    QJsonObject force{{QStringLiteral("type"), QStringLiteral("boolean")},
                      {QStringLiteral("description"), QStringLiteral("Destroy even when the clone's work cannot be saved to the "
                                                                     "host repository first (that work is then lost). Default false.")}};
    add({QStringLiteral("sandbox_destroy"), QStringLiteral("Destroy sandbox"),
         QStringLiteral("Use this when you are done with a sandbox, or to clear a failed one: removes the VM and everything in "
                        "it outside the workspace. Managed workspace: the folder is kept. Direct mode: the host folder already "
                        "has every change. Clone mode: the clone lives only in the VM, so its commits and uncommitted changes "
                        "are first saved as the branch chat2sbx/<sandbox_id> in the user's repository (the result names it); "
                        "if that fails nothing is destroyed unless force is true. Safe to repeat."),
         objectSchema({{QStringLiteral("sandbox_id"), sandboxIdProperty()}, {QStringLiteral("force"), force}},
                      {QStringLiteral("sandbox_id")}),
         summarySchema(QJsonObject{{QStringLiteral("destroyed"), QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}}},
                                   {QStringLiteral("work_saved_on_branch"), str(QStringLiteral("clone mode: the host branch holding the sandbox's work"))},
                                   {QStringLiteral("work"), str(QStringLiteral("what happened to the sandbox's work"))}}),
         {false, true, true, false}},
        sandboxDestroy, c);

    QJsonObject port = integer(QStringLiteral("The TCP port a server listens on inside the sandbox (1-65535)."));
    port.insert(QStringLiteral("minimum"), 1);
    port.insert(QStringLiteral("maximum"), 65535);
    QJsonObject hostPort = integer(QStringLiteral("A specific TCP port on the host (1-65535). Omit to get a free one."));
    hostPort.insert(QStringLiteral("minimum"), 1);
    hostPort.insert(QStringLiteral("maximum"), 65535);
    QJsonObject host = str(QStringLiteral("Host address to publish on. Default 127.0.0.1 (this machine only). 0.0.0.0 or a LAN "
                                          "address works only if the user allowed LAN exposure in chat2sbx's settings."));
    host.insert(QStringLiteral("maxLength"), 64);
    QJsonObject exposeOut = portProperties();
    exposeOut.insert(QStringLiteral("sandbox_id"), str(QStringLiteral("the sandbox")));
    exposeOut.insert(QStringLiteral("already_exposed"), QJsonObject{{QStringLiteral("type"), QStringLiteral("boolean")}});
    exposeOut.insert(QStringLiteral("listening"),
                     QJsonObject{{QStringLiteral("type"), QJsonArray{QStringLiteral("boolean"), QStringLiteral("null")}},
                                 {QStringLiteral("description"),
                                  QStringLiteral("whether something listens on the port inside the sandbox now (null: unknown)")}});
    exposeOut.insert(QStringLiteral("hint"), str(QStringLiteral("what to do when nothing listens yet")));
    add({QStringLiteral("sandbox_expose"), QStringLiteral("Expose sandbox port"),
         QStringLiteral("Use this when a server runs inside the sandbox and the user should open it from their machine: "
                        "publishes the sandbox's TCP port on a host port (127.0.0.1 by default) and returns its URL and "
                        "whether anything listens there yet. Asking again returns the same mapping."),
         objectSchema({{QStringLiteral("sandbox_id"), sandboxIdProperty()}, {QStringLiteral("port"), port},
                       {QStringLiteral("host"), host}, {QStringLiteral("host_port"), hostPort}},
                      {QStringLiteral("sandbox_id"), QStringLiteral("port")}),
         QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), exposeOut}},
         {false, false, true, false}},
        sandboxExpose, c);
}

} // namespace chat2sbx
