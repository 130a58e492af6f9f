#include "tools/NetworkTools.h"

#include "mcp/ToolRegistry.h"
#include "sandbox/network/NetworkAccess.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr int kMaxNetworkReasonChars = 500;
constexpr int kMaxNetworkHostChars = 260;

ToolDefinition networkRequestDefinition()
{
    ToolDefinition d;
    d.name = QStringLiteral("network_request");
    d.title = QStringLiteral("Request network access");
    d.description = QStringLiteral(
        "Ask the local user to let a sandbox reach hosts its network policy blocks (a bash result's network_blocked "
        "names them). hosts: up to 10 sbx host patterns: example.com, *.example.com (its subdomains), host:port. "
        "Returns approval_required with a request_id at once; the user allows it for this sandbox or always, or "
        "denies it. Call again with the same arguments to learn the decision; once allowed, run the command again.");
    QJsonObject host = schema::str(QStringLiteral("host pattern"), kMaxNetworkHostChars);
    host.insert(QStringLiteral("pattern"), QStringLiteral("^(\\*\\.)?[A-Za-z0-9][A-Za-z0-9.-]*(:[0-9]{1,5})?$"));
    QJsonObject hosts = schema::arrayOf(host, QStringLiteral("the hosts to allow"));
    hosts.insert(QStringLiteral("minItems"), 1);
    hosts.insert(QStringLiteral("maxItems"), NetworkAccess::kMaxHosts);
    d.inputSchema = schema::object(
        {{QStringLiteral("sandbox_id"), schema::sandboxIdProperty()},
         {QStringLiteral("hosts"), hosts},
         {QStringLiteral("reason"), schema::str(QStringLiteral("why the sandbox needs these hosts, shown to the user (at most 500 characters)"),
                                                kMaxNetworkReasonChars)}},
        {QStringLiteral("sandbox_id"), QStringLiteral("hosts")});
    d.outputSchema = schema::result(
        {{QStringLiteral("status"), schema::oneOf({QStringLiteral("approval_required"), QStringLiteral("allowed"), QStringLiteral("denied")},
                                                  QStringLiteral("where the request stands"))},
         {QStringLiteral("request_id"), schema::str(QStringLiteral("net_ id of the request"))},
         {QStringLiteral("sandbox_id"), schema::str(QStringLiteral("the sandbox"))},
         {QStringLiteral("hosts"), schema::arrayOf(schema::str(QStringLiteral("host pattern")))},
         {QStringLiteral("scope"), schema::oneOf({QStringLiteral("sandbox"), QStringLiteral("always")},
                                                 QStringLiteral("allowed: for this sandbox or for every sandbox"))},
         {QStringLiteral("how_to_approve"), schema::str(QStringLiteral("what to tell the user"))},
         {QStringLiteral("message"), schema::str(QStringLiteral("what to do next"))}});
    d.annotations = ToolAnnotations::of(ToolEffect::Additive, ToolRepeat::Idempotent, ToolReach::Sandbox);
    d.presentation.invoking = QStringLiteral("Asking the user to allow network hosts…");
    d.presentation.invoked = QStringLiteral("The user was asked about the hosts");
    return d;
}

void runNetworkRequest(const ToolCall &call, NetworkAccess &network)
{
    ToolArgs args(call.arguments);
    QString sandboxId, reason;
    if (!args.sandboxId(sandboxId) || !args.string(QStringLiteral("reason"), reason, kMaxNetworkReasonChars * 4,
                                                   ToolArgs::Presence::Optional))
        return call.responder.error(args.error());
    QStringList hosts;
    for (const QJsonValue &v : call.arguments.value(QStringLiteral("hosts")).toArray())
        hosts << v.toString();
    // One line, no control characters: it is shown in the tray, a notification and the CLI.
    reason = reason.simplified();
    reason.remove(QRegularExpression(QStringLiteral("[\\x00-\\x1f\\x7f]")));

    const NetworkAccess::RequestOutcome out = network.request(sandboxId, hosts, reason, call.clientName.left(100));
    using Status = NetworkAccess::RequestOutcome::Status;
    if (out.status == Status::Refused)
        return call.responder.error(QStringLiteral("network request refused: %1").arg(out.reason));
    QJsonObject result{{QStringLiteral("sandbox_id"), sandboxId},
                       {QStringLiteral("hosts"), QJsonArray::fromStringList(out.request.hosts.isEmpty() ? hosts : out.request.hosts)}};
    if (!out.request.id.isEmpty())
        result.insert(QStringLiteral("request_id"), out.request.id);
    switch (out.status) {
    case Status::Refused:
        break;
    case Status::Allowed:
        result.insert(QStringLiteral("status"), QStringLiteral("allowed"));
        if (!out.request.id.isEmpty())
            result.insert(QStringLiteral("scope"), out.request.always ? QStringLiteral("always") : QStringLiteral("sandbox"));
        result.insert(QStringLiteral("message"), QStringLiteral("the user allowed these hosts: run the command again"));
        break;
    case Status::Denied:
        result.insert(QStringLiteral("status"), QStringLiteral("denied"));
        result.insert(QStringLiteral("message"), QStringLiteral("the user denied access to these hosts; do not ask again "
                                                                "unless the user says so, and work without them"));
        break;
    case Status::ApprovalRequired:
        result.insert(QStringLiteral("status"), QStringLiteral("approval_required"));
        result.insert(QStringLiteral("how_to_approve"),
                      QStringLiteral("ask the user to allow it in the chat2sbx tray or with `chat2sbx network allow %1` "
                                     "(add --always for every sandbox)").arg(out.request.id));
        result.insert(QStringLiteral("message"), QStringLiteral("call network_request again with the same arguments to learn "
                                                                "the decision; once allowed, run the command again"));
        break;
    }
    call.responder.ok(result);
}

} // namespace

void registerNetworkTools(ToolRegistry &registry, NetworkAccess &network)
{
    registry.add(networkRequestDefinition(), [&network](const ToolCall &call) { runNetworkRequest(call, network); });
}

} // namespace chat2sbx
