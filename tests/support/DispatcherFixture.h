#pragma once

// McpDispatcher without sockets, for the unit tests of both protocol eras: a registry of small tools
// (echo, slow, drop, run), the runner with a recording audit sink, and helpers that send a message
// and compare answers.
#include "core/JsonRpc.h"
#include "ManualClock.h"
#include "mcp/AuditSink.h"
#include "mcp/McpDispatcher.h"
#include "mcp/ToolCallRunner.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <memory>

namespace chat2sbx::test {

class RecordingAuditSink : public AuditSink {
public:
    bool record(const AuditEntry &entry, QString &) override
    {
        rows << entry;
        return true;
    }
    QList<AuditEntry> rows;
};

enum class SessionHeader { None, Initialized, Unknown };

inline QJsonObject object(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

// `expected` is contained in `actual`: every key of an object (recursively), arrays element by
// element with the same length, other values equal. An empty expected object matches only {}.
inline bool contains(const QJsonValue &actual, const QJsonValue &expected, QString &where)
{
    if (expected.isObject()) {
        const QJsonObject e = expected.toObject();
        if (!actual.isObject() || (e.isEmpty() && !actual.toObject().isEmpty())) {
            where = QStringLiteral("not the object expected");
            return false;
        }
        const QJsonObject a = actual.toObject();
        for (auto it = e.begin(); it != e.end(); ++it) {
            if (!a.contains(it.key()) || !contains(a.value(it.key()), it.value(), where)) {
                where = it.key() + QLatin1Char('.') + where;
                return false;
            }
        }
        return true;
    }
    if (expected.isArray()) {
        const QJsonArray e = expected.toArray();
        const QJsonArray a = actual.toArray();
        if (!actual.isArray() || a.size() != e.size()) {
            where = QStringLiteral("array length");
            return false;
        }
        for (qsizetype i = 0; i < e.size(); ++i)
            if (!contains(a.at(i), e.at(i), where)) {
                where = QStringLiteral("[%1].").arg(i) + where;
                return false;
            }
        return true;
    }
    if (actual != expected) {
        where = QStringLiteral("value");
        return false;
    }
    return true;
}

inline QJsonObject stringSchema()
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), QJsonObject{{QStringLiteral("text"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
                       {QStringLiteral("required"), QJsonArray{QStringLiteral("text")}},
                       {QStringLiteral("additionalProperties"), false}};
}

inline QJsonObject emptySchema()
{
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("properties"), QJsonObject{}},
                       {QStringLiteral("additionalProperties"), false}};
}

inline QString runOutput() { return QStringLiteral("line \"1\"\tend\n").repeated(30); }
inline QJsonObject runResult()
{
    return {{QStringLiteral("session_id"), QStringLiteral("bash_1")}, {QStringLiteral("status"), QStringLiteral("exited")},
            {QStringLiteral("exit_code"), 0}, {QStringLiteral("output"), runOutput()},
            {QStringLiteral("files"), QJsonArray{QStringLiteral("a"), QStringLiteral("b")}}};
}
inline QJsonObject callResult(const McpAnswer &answer)
{
    return QJsonDocument::fromJson(answer.json).object().value(QStringLiteral("result")).toObject();
}

inline QByteArray callSlow(int id)
{
    return QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")}, {QStringLiteral("id"), id},
                                     {QStringLiteral("method"), QStringLiteral("tools/call")},
                                     {QStringLiteral("params"), QJsonObject{{QStringLiteral("name"), QStringLiteral("slow")}}}})
        .toJson(QJsonDocument::Compact);
}

struct DispatcherFixture {
    ManualClock clock{1000000};
    ToolRegistry tools;
    RecordingAuditSink audit;
    QList<ToolCall> heldCalls;   // calls of the `slow` tool, answered (or not) by the test
    std::unique_ptr<ToolCallRunner> calls;
    std::unique_ptr<McpDispatcher> dispatcher;

    DispatcherFixture()
    {
        tools.add(ToolDefinition{QStringLiteral("echo"), QStringLiteral("Echo"), QStringLiteral("Returns its text."),
                                 stringSchema(), {}, {}},
                  [](const ToolCall &call) {
                      call.responder.ok(QJsonObject{{QStringLiteral("text"), call.arguments.value(QStringLiteral("text"))}});
                  });
        tools.add(ToolDefinition{QStringLiteral("slow"), QStringLiteral("Slow"), QStringLiteral("Answers when told."),
                                 emptySchema(), {}, {}},
                  [this](const ToolCall &call) { heldCalls << call; });
        tools.add(ToolDefinition{QStringLiteral("drop"), QStringLiteral("Drop"), QStringLiteral("Never answers."),
                                 emptySchema(), {}, {}},
                  [](const ToolCall &) {});
        // A command-like tool drawn by the card, its output a payload field.
        ToolDefinition run{QStringLiteral("run"), QStringLiteral("Run"), QStringLiteral("Returns a long output."),
                           emptySchema(), {}, {}};
        run.presentation.invoking = QStringLiteral("Running…");
        run.presentation.invoked = QStringLiteral("Ran");
        run.presentation.cardView = ToolCardView::Terminal;
        run.presentation.payloadFields = {QStringLiteral("output")};
        tools.add(run, [](const ToolCall &call) { call.responder.ok(runResult()); });
        calls = std::make_unique<ToolCallRunner>(tools, audit, clock);
        dispatcher = std::make_unique<McpDispatcher>(tools, *calls, clock, 60);
    }
    ~DispatcherFixture()
    {
        dispatcher.reset();
        calls.reset();
    }

    QList<McpAnswer> send(const QByteArray &body, const QString &sessionId = {},
                          const std::optional<QString> &version = std::nullopt)
    {
        auto answers = std::make_shared<QList<McpAnswer>>();
        McpMessageContext context{sessionId, version};
        dispatcher->dispatchBody(body, context, [answers](const McpAnswer &a) { answers->append(a); });
        return *answers;
    }
    QList<McpAnswer> sendWith(const QByteArray &body, const McpMessageContext &context)
    {
        auto answers = std::make_shared<QList<McpAnswer>>();
        dispatcher->dispatchBody(body, context, [answers](const McpAnswer &a) { answers->append(a); });
        return *answers;
    }
    std::shared_ptr<QList<McpAnswer>> sendAsyncWith(const QByteArray &body, const McpMessageContext &context)
    {
        auto answers = std::make_shared<QList<McpAnswer>>();
        dispatcher->dispatchBody(body, context, [answers](const McpAnswer &a) { answers->append(a); });
        return answers;
    }
    // Sends and keeps collecting: for calls answered later.
    std::shared_ptr<QList<McpAnswer>> sendAsync(const QByteArray &body, const QString &sessionId)
    {
        auto answers = std::make_shared<QList<McpAnswer>>();
        dispatcher->dispatchBody(body, McpMessageContext{sessionId, std::nullopt},
                                 [answers](const McpAnswer &a) { answers->append(a); });
        return answers;
    }
    QString initialize(const QString &clientName = QStringLiteral("row-client"))
    {
        const QList<McpAnswer> a = send(R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":")"
                                        + clientName.toUtf8() + R"(","version":"1"}}})");
        return a.size() == 1 ? a.first().createdSessionId : QString();
    }
};

} // namespace chat2sbx::test
