#include "tools/BashToolSupport.h"

#include "tools/NetworkBlockDetector.h"
#include "tools/ToolArgs.h"

#include <QJsonArray>

namespace chat2sbx {
namespace {

QJsonObject bashSnapshotJson(const BashSnapshot &s)
{
    QJsonObject o{{QStringLiteral("session_id"), s.sessionId},
                  {QStringLiteral("status"), bashSessionStatus(s.exited, s.lostReason)},
                  {QStringLiteral("exit_code"), s.exitCode ? QJsonValue(*s.exitCode) : QJsonValue(QJsonValue::Null)},
                  {QStringLiteral("timed_out"), s.timedOut},
                  {QStringLiteral("output"), s.output},
                  {QStringLiteral("has_more_output"), s.hasMoreOutput}};
    insertBashLostReason(o, s.lostReason);
    if (const std::optional<NetworkBlock> block = detectNetworkBlock(s.output))
        o.insert(QStringLiteral("network_blocked"), networkBlockJson(*block));
    return o;
}

QJsonObject bashNetworkBlockedProperty()
{
    QJsonObject o = schema::object({{QStringLiteral("hosts"), schema::arrayOf(schema::str(QStringLiteral("host pattern for network_request")))},
                                    {QStringLiteral("hint"), schema::str(QStringLiteral("what to do"))}},
                                   {QStringLiteral("hosts"), QStringLiteral("hint")});
    o.insert(QStringLiteral("description"), QStringLiteral("Present when the output shows the sandbox's network policy "
                                                           "blocked a request: ask for access with network_request"));
    return o;
}

} // namespace

QString bashSessionStatus(bool exited, const QString &lostReason)
{
    if (!lostReason.isEmpty())
        return QStringLiteral("lost");
    return exited ? QStringLiteral("exited") : QStringLiteral("running");
}

void insertBashLostReason(QJsonObject &result, const QString &lostReason)
{
    if (!lostReason.isEmpty())
        result.insert(QStringLiteral("lost_reason"), lostReason);
}

QJsonObject bashSessionIdProperty()
{
    return schema::id(QStringLiteral("bash_"), QStringLiteral("A session id returned by bash"));
}

QJsonObject bashYieldProperty()
{
    return schema::integer(QStringLiteral("How long to wait for output or exit before returning, in ms (default 10000)"), 0,
                           kMaxBashYieldMs);
}

QJsonObject bashStatusProperty()
{
    return {{QStringLiteral("type"), QStringLiteral("string")},
            {QStringLiteral("description"), QStringLiteral("lost: its processes ended without an exit status (the sandbox "
                                                           "stopped); lost_reason says why, files are kept")},
            {QStringLiteral("enum"), QJsonArray{QStringLiteral("running"), QStringLiteral("exited"), QStringLiteral("lost")}}};
}

QJsonObject bashLostReasonProperty()
{
    return schema::str(QStringLiteral("Why the session is lost"));
}

QJsonObject bashExitCodeProperty()
{
    return {{QStringLiteral("type"), QJsonArray{QStringLiteral("integer"), QStringLiteral("null")}}};
}

QJsonObject bashSnapshotSchema()
{
    return schema::result({{QStringLiteral("session_id"), schema::str(QStringLiteral("The bash session"))},
                           {QStringLiteral("status"), bashStatusProperty()},
                           {QStringLiteral("exit_code"), bashExitCodeProperty()},
                           {QStringLiteral("timed_out"), schema::boolean(QStringLiteral("Stopped by timeout_ms (exit code 124)"))},
                           {QStringLiteral("output"), schema::str(QStringLiteral("Output not returned before"))},
                           {QStringLiteral("has_more_output"), schema::boolean(QStringLiteral("More output is buffered; poll again"))},
                           {QStringLiteral("lost_reason"), bashLostReasonProperty()},
                           {QStringLiteral("network_blocked"), bashNetworkBlockedProperty()}});
}

bool readBashSessionId(const ToolCall &call, ToolArgs &args, QString &sessionId)
{
    if (!args.string(QStringLiteral("session_id"), sessionId, 64)) {
        call.responder.error(args.error());
        return false;
    }
    return true;
}

BashSessions::SnapshotDone answerWithSnapshot(const ToolResponder &responder)
{
    return [responder](bool ok, const QString &error, const BashSnapshot &s) {
        if (ok)
            responder.ok(bashSnapshotJson(s));
        else
            responder.error(error);
    };
}

} // namespace chat2sbx
