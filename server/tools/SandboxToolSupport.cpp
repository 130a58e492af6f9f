#include "tools/SandboxToolSupport.h"

#include "config/AgentsMd.h"
#include "config/Config.h"
#include "sandbox/lifecycle/SandboxReconciler.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/present/SandboxSleepJson.h"
#include "tools/ToolArgs.h"

#include <QPointer>
#include <QTimer>

#include <optional>

namespace chat2sbx {
namespace {

QJsonObject sandboxSummaryProperties()
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
        {QStringLiteral("unreachable"),
         schema::result({{QStringLiteral("since"), schema::str(QStringLiteral("ISO-8601 UTC: since when sbx has not listed it"))},
                         {QStringLiteral("listings_missed"), schema::typed(QStringLiteral("integer"))},
                         {QStringLiteral("why"), schema::str(QStringLiteral("What is known of why, and what brings it back"))}})},
        {QStringLiteral("ports"), schema::arrayOf(schema::result(exposedPortProperties()))},
        {QStringLiteral("forked_from"),
         schema::result({{QStringLiteral("sandbox_id"), schema::str(QStringLiteral("The sandbox this fork was made from"))},
                         {QStringLiteral("checkpoint_id"), schema::str(QStringLiteral("Its checkpoint the fork started at"))}})},
    };
}

} // namespace

void whenSbxAvailable(const SandboxToolContext &c, const ToolCall &call, std::function<void()> run)
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

QString sbxProblemNow(const SandboxToolContext &c)
{
    if (c.sandboxes->reconciler().isSbxAvailable())
        return {};
    c.sandboxes->ensureAvailable([](bool, const QString &) {});
    return c.sandboxes->publicText(c.sandboxes->reconciler().unavailableError());
}

QPair<QString, QJsonValue> sbxProblemProperty()
{
    return {QStringLiteral("sbx_problem"),
            schema::str(QStringLiteral("Present while sbx is not available: why, and what fixes it. The sandboxes are shown as "
                                       "last recorded; tools that run in a sandbox fail until sbx answers again"))};
}

void answerWithin(const SandboxToolContext &c, const ToolCall &call, const QString &stillRunning)
{
    QTimer::singleShot(c.config->sandboxAnswerWithinMs, c.sandboxes, [responder = call.responder, stillRunning] {
        responder.error(stillRunning);
    });
}

bool insertAgentsMd(const Config &config, QJsonObject &out, QString &error)
{
    std::optional<QString> text;
    if (!readGlobalAgentsFile(config.agentsFilePath(), text, error))
        return false;
    if (text)
        out.insert(QStringLiteral("agents_md"), *text);
    return true;
}

QJsonObject knownSandboxIdProperty()
{
    return schema::id(QStringLiteral("sbx_"),
                      QStringLiteral("The sandbox_id returned by sandbox_create or sandbox_list (sbx_ followed by 24 hex digits)."));
}

QJsonObject exposedPortProperties()
{
    return {{QStringLiteral("sandbox_port"), schema::typed(QStringLiteral("integer"), QStringLiteral("TCP port inside the sandbox"))},
            {QStringLiteral("host_ip"), schema::str(QStringLiteral("address the host port is bound to (127.0.0.1: this machine only)"))},
            {QStringLiteral("host_port"), schema::typed(QStringLiteral("integer"), QStringLiteral("TCP port on the host"))},
            {QStringLiteral("url"), schema::str(QStringLiteral("http URL to open on the host"))},
            {QStringLiteral("lan_wide"), schema::boolean(QStringLiteral("other machines on the network can reach it"))}};
}

QJsonObject agentsMdProperty()
{
    return {{QStringLiteral("agents_md"),
             schema::str(QStringLiteral("The exact text of the user's global AGENTS.md instructions, present when that file exists: follow them"))}};
}

QJsonObject sandboxSummarySchema(const QJsonObject &extra)
{
    QJsonObject props = sandboxSummaryProperties();
    const QJsonObject sleep = sleepSchemaProperties();
    for (auto it = sleep.begin(); it != sleep.end(); ++it)
        props.insert(it.key(), it.value());
    for (auto it = extra.begin(); it != extra.end(); ++it)
        props.insert(it.key(), it.value());
    return schema::result(props);
}

} // namespace chat2sbx
