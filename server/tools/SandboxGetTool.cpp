#include "tools/SandboxTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/changes/CheckpointService.h"
#include "sandbox/lifecycle/SandboxService.h"
#include "sandbox/network/NetworkAccess.h"
#include "sandbox/present/CheckpointJson.h"
#include "sandbox/present/SandboxPresenter.h"
#include "tools/SandboxToolSupport.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QTimer>

#include <memory>
#include <utility>

namespace chat2sbx {
namespace {

// sandbox_get waits this long for `sbx policy log`; a slower answer goes without the blocked hosts.
constexpr int kBlockedHostsWaitMs = 3000;

ToolDefinition sandboxGetDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("sandbox_get");
    d.title = QStringLiteral("Get sandbox");
    d.description = QStringLiteral(
        "Use this when you need the current state of one sandbox (running, failed and why, idle deadline, exposed ports, "
        "workspace path) or the global AGENTS.md instructions again.");
    d.inputSchema = schema::object({{QStringLiteral("sandbox_id"), knownSandboxIdProperty()}}, {QStringLiteral("sandbox_id")});
    QJsonObject extra = agentsMdProperty();
    extra.insert(QStringLiteral("checkpoints"),
                 schema::arrayOf(schema::typed(QStringLiteral("object")),
                                 QStringLiteral("Its checkpoints that are ready or being saved (sandbox_restore, sandbox_fork)")));
    extra.insert(QStringLiteral("recent_blocked_hosts"),
                 schema::arrayOf(schema::str(QStringLiteral("host:port")),
                                 QStringLiteral("Hosts the sandbox's network policy blocked lately (newest first); ask for "
                                                "them with network_request")));
    extra.insert(sbxProblemProperty().first, sbxProblemProperty().second);
    d.outputSchema = sandboxSummarySchema(extra);
    d.annotations = ToolAnnotations::of(ToolEffect::ReadOnly, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Looking at the sandbox…");
    d.presentation.invoked = QStringLiteral("Looked at the sandbox");
    d.presentation.cardView = ToolCardView::Sandbox;
    return d;
}

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

void runSandboxGet(const SandboxToolContext &c, const ToolCall &call)
{
    ToolArgs args(call.arguments);
    QString id;
    if (!args.sandboxId(id))
        return call.responder.error(args.error());
    // The record as it is, at once, also while sbx hangs or is missing (then with why).
    const QString sbxProblem = sbxProblemNow(c);
    const auto view = c.sandboxes->get(id);
    if (!view)
        return call.responder.error(QStringLiteral("unknown sandbox_id %1").arg(id));
    QJsonObject result = sandboxJson(*view, *c.sandboxes);
    if (c.checkpoints) {
        QJsonArray checkpoints;
        for (const Checkpoint &cp : c.checkpoints->list(id))
            if (cp.state != CheckpointState::Failed)
                checkpoints.append(checkpointJson(cp));
        result.insert(QStringLiteral("checkpoints"), checkpoints);
    }
    QString agentsError;
    if (!insertAgentsMd(*c.config, result, agentsError))
        return call.responder.error(agentsError);
    if (!sbxProblem.isEmpty())
        result.insert(QStringLiteral("sbx_problem"), sbxProblem);
    if (!c.network || !view->record.isActive() || !sbxProblem.isEmpty())
        return call.responder.ok(result);
    addBlockedHosts(*c.network, id, result, call.responder);
}

} // namespace

void addSandboxGetTool(ToolRegistry &registry, const SandboxToolContext &context)
{
    registry.add(sandboxGetDefinition(), [context](const ToolCall &call) { runSandboxGet(context, call); });
}

} // namespace chat2sbx
