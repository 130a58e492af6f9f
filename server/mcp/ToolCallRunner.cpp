#include "mcp/ToolCallRunner.h"

#include "core/Clock.h"
#include "core/JsonRpc.h"
#include "core/JsonText.h"
#include "mcp/AuditSink.h"
#include "mcp/AuditSummary.h"
#include "mcp/SchemaValidator.h"
#include "mcp/ServerDescription.h"
#include "mcp/ToolRegistry.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QPointer>
#include <QTimer>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcToolCall, "chat2sbx.mcp.toolcall")

namespace {

// Fires when every copy of a call's ToolResponder is gone without an answer (a handler bug):
// the request then gets -32603 instead of hanging for ever.
class DropGuard {
public:
    explicit DropGuard(std::function<void()> onDrop) : m_onDrop(std::move(onDrop)) {}
    ~DropGuard()
    {
        if (!m_answered && m_onDrop)
            m_onDrop();
    }
    void answered() { m_answered = true; }

private:
    bool m_answered = false;
    std::function<void()> m_onDrop;
};

QString oneLine(const QString &s, int max = 200)
{
    QString t = s.simplified();
    return t.size() > max ? t.left(max - 3) + QStringLiteral("...") : t;
}

} // namespace

ToolCallRunner::ToolCallRunner(ToolRegistry &tools, AuditSink &audit, const Clock &clock, QObject *parent)
    : QObject(parent), m_tools(tools), m_audit(audit), m_clock(clock)
{
}

ToolCallRunner::~ToolCallRunner()
{
    // Shutting down: handlers stop their work; their HTTP requests are dropped with the server.
    const auto sessions = m_pending;
    m_pending.clear();
    for (const auto &calls : sessions) {
        for (const auto &p : calls) {
            audit(Subject{p->sessionId, p->client, p->conversation, p->tool, p->sandboxId, p->summary}, p->startedAt, p->elapsed.elapsed(),
                  QStringLiteral("cancelled"), QStringLiteral("server shutting down"));
            p->token.cancel();
        }
    }
}

std::shared_ptr<ToolCallRunner::Pending> ToolCallRunner::findPending(const QString &scope, const QJsonValue &rpcId) const
{
    const auto calls = m_pending.constFind(scope);
    return calls == m_pending.cend() ? nullptr : calls->value(jsonrpc::idKey(rpcId));
}

bool ToolCallRunner::isPending(const QString &scope, const QJsonValue &rpcId) const
{
    return findPending(scope, rpcId) != nullptr;
}

int ToolCallRunner::pendingCount(const QString &scope) const
{
    const auto calls = m_pending.constFind(scope);
    return calls == m_pending.cend() ? 0 : int(calls->size());
}

QString ToolCallRunner::newModernScope()
{
    // '#' never appears in a session id (32 hex characters).
    return QStringLiteral("modern#") + QString::number(++m_modernScopes);
}

QByteArray ToolCallRunner::callToolResultJson(const ToolResult &result, const ResultLayout &layout)
{
    const bool hasOutputSchema = layout.hasOutputSchema;
    if (result.isError) {
        QJsonObject structured = result.structuredObject();
        QString text = result.message;
        if (hasOutputSchema && !structured.isEmpty())
            text += QStringLiteral("\n") + QString::fromUtf8(json::compact(structured));
        structured.insert(QStringLiteral("error"), result.message);
        QJsonArray content{QJsonObject{{QStringLiteral("type"), QStringLiteral("text")}, {QStringLiteral("text"), text}}};
        QJsonObject out{{QStringLiteral("content"), content}, {QStringLiteral("isError"), true}};
        if (!hasOutputSchema)
            out.insert(QStringLiteral("structuredContent"), structured);
        if (layout.modern)
            serverdescription::stampModern(out);
        return json::compact(out);
    }
    // Success: the structured result is serialized once; the full text of a result without payload
    // fields is that same JSON. Keys in QJsonDocument's (sorted) order.
    const QByteArray structured = result.structuredJson.isEmpty() ? json::compact(result.structured) : result.structuredJson;
    const bool textIsStructured = layout.form == ResultTextForm::Full && layout.payloadFields.isEmpty();
    const QByteArray text = textIsStructured ? QByteArray()
                                             : resultText(result.structuredObject(), layout.payloadFields, layout.form);
    QByteArray out;
    out.reserve(structured.size() + (textIsStructured ? structured : text).size() * 9 / 8 + 160);
    out += '{';
    const bool card = layout.cardView != ToolCardView::None;
    if (card || layout.modern) {
        out += "\"_meta\":{";
        if (card) {
            out += "\"chat2sbx/tool\":";
            json::appendString(out, layout.cardTool.toUtf8());
            out += ",\"chat2sbx/view\":";
            json::appendString(out, toolCardViewName(layout.cardView).toUtf8());
            for (auto it = result.cardMeta.begin(); it != result.cardMeta.end(); ++it) {
                out += ',';
                json::appendString(out, it.key().toUtf8());
                out += ':';
                json::appendValue(out, it.value());
            }
        }
        if (layout.modern) {
            if (card)
                out += ',';
            out += serverdescription::modernMetaMembers();
        }
        out += "},";
    }
    out += "\"content\":[{\"text\":";
    json::appendString(out, textIsStructured ? structured : text);
    out += ",\"type\":\"text\"}";
    for (const QJsonValue &block : result.extraContent) {
        out += ',';
        json::appendValue(out, block);
    }
    out += "],\"isError\":false,";
    if (layout.modern)
        out += "\"resultType\":\"complete\",";
    out += "\"structuredContent\":";
    out += structured;
    out += '}';
    return out;
}

void ToolCallRunner::call(const QString &scope, const McpCaller &caller, const QJsonValue &rpcId, const QJsonObject &params,
                          Reply reply)
{
    const qint64 startedAt = m_clock.nowMs();
    const bool modern = caller.client.modern;
    ResultLayout plain;
    plain.modern = modern;
    const QJsonValue nameValue = params.value(QStringLiteral("name"));
    if (!nameValue.isString()) {
        audit(subjectOf(caller, QStringLiteral("(none)"), {}), startedAt, 0, QStringLiteral("invalid"), QStringLiteral("\"name\" is not a string"));
        return reply(jsonrpc::serialize(jsonrpc::error(rpcId, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"name\" must be a string"))));
    }
    const QString name = nameValue.toString();
    const QJsonValue argsValue = params.value(QStringLiteral("arguments"));
    if (!argsValue.isUndefined() && !argsValue.isNull() && !argsValue.isObject()) {
        audit(subjectOf(caller, name.left(64), {}), startedAt, 0, QStringLiteral("invalid"), QStringLiteral("\"arguments\" is not an object"));
        return reply(jsonrpc::serialize(jsonrpc::error(rpcId, jsonrpc::InvalidParams, QStringLiteral("Invalid params: \"arguments\" must be an object"))));
    }
    const QJsonObject arguments = argsValue.toObject();

    const ToolRegistry::Entry *entry = m_tools.find(name);
    const QString sandboxId = arguments.value(QStringLiteral("sandbox_id")).isString()
                                  ? arguments.value(QStringLiteral("sandbox_id")).toString().left(64) : QString();
    if (!entry) {
        audit(subjectOf(caller, name.left(64), sandboxId), startedAt, 0, QStringLiteral("invalid"), QStringLiteral("unknown tool"));
        return reply(jsonrpc::serialize(jsonrpc::error(rpcId, jsonrpc::InvalidParams, QStringLiteral("Unknown tool: %1").arg(oneLine(name, 64)),
                                                       QJsonObject{{QStringLiteral("tool"), oneLine(name, 64)}})));
    }
    const QString key = jsonrpc::idKey(rpcId);
    if (isPending(scope, rpcId))
        return reply(jsonrpc::serialize(
            jsonrpc::error(rpcId, jsonrpc::InvalidRequest, QStringLiteral("Invalid Request: id already in use by a pending request"))));
    const bool full = modern ? m_modernPending >= kMaxPendingModern : pendingCount(scope) >= kMaxPendingPerSession;
    if (full) {
        const QString message = modern
            ? QStringLiteral("too many tool calls in progress (limit %1); wait for one to finish").arg(kMaxPendingModern)
            : QStringLiteral("too many tool calls in progress in this session (limit %1); wait for one to finish").arg(kMaxPendingPerSession);
        audit(subjectOf(caller, name, sandboxId, arguments), startedAt, 0, QStringLiteral("error"), message);
        return reply(jsonrpc::serializeResult(rpcId, callToolResultJson(ToolResult::error(message), plain)));
    }

    const QString violation = SchemaValidator::validate(entry->definition.inputSchema, arguments);
    if (!violation.isEmpty()) {
        audit(subjectOf(caller, name, sandboxId, arguments), startedAt, 0, QStringLiteral("invalid"), oneLine(violation));
        emit callFinished(name, QStringLiteral("invalid"));
        ResultLayout layout = plain;
        layout.hasOutputSchema = !entry->definition.outputSchema.isEmpty();
        return reply(jsonrpc::serializeResult(rpcId, callToolResultJson(ToolResult::error(violation), layout)));
    }

    auto pending = std::make_shared<Pending>();
    pending->key = key;
    pending->scope = scope;
    pending->sessionId = caller.sessionId;
    pending->rpcId = rpcId;
    pending->tool = name;
    pending->sandboxId = sandboxId;
    const Subject subject = subjectOf(caller, name, sandboxId, arguments);
    pending->client = subject.client;
    pending->conversation = subject.conversation;
    pending->summary = subject.summary;
    pending->startedAt = startedAt;
    pending->modern = modern;
    pending->elapsed.start();
    pending->reply = std::move(reply);
    m_pending[scope].insert(key, pending);
    if (modern)
        ++m_modernPending;

    QPointer<ToolCallRunner> self(this);
    std::weak_ptr<Pending> weak = pending;
    auto guard = std::make_shared<DropGuard>([self, weak] {
        // Deferred: this runs while the handler's state is being destroyed.
        QTimer::singleShot(0, [self, weak] {
            auto p = weak.lock();
            if (!self || !p || self->findPending(p->scope, p->rpcId) != p)
                return;
            qCWarning(lcToolCall).noquote() << "tool" << p->tool << "dropped its call without an answer";
            self->complete(p, jsonrpc::serialize(jsonrpc::error(p->rpcId, jsonrpc::InternalError,
                                                                QStringLiteral("Internal error: the tool ended without a result"))),
                           QStringLiteral("error"), QStringLiteral("internal error: no result"));
        });
    });

    ToolCall call;
    call.toolName = name;
    call.arguments = arguments;
    call.mcpSessionId = caller.sessionId;
    call.clientName = caller.client.name;
    call.conversation = caller.conversation;
    call.cancellation = pending->token;
    ResultLayout layout;
    layout.hasOutputSchema = !entry->definition.outputSchema.isEmpty();
    layout.payloadFields = entry->definition.presentation.payloadFields;
    layout.form = caller.client.textForm();
    if (m_tools.hasCard(entry->definition)) {
        layout.cardTool = name;
        layout.cardView = entry->definition.presentation.cardView;
    }
    layout.modern = modern;
    call.responder = ToolResponder([self, weak, guard, layout](const ToolResult &result) {
        guard->answered();
        auto p = weak.lock();
        if (!self || !p || self->findPending(p->scope, p->rpcId) != p)
            return;   // cancelled, or the session ended, before the handler answered
        // A call that made a sandbox (sandbox_create) is audited under the sandbox it made, so the
        // sandbox's history (chat2sbx audit --sandbox, which conversation created it) starts there.
        if (p->sandboxId.isEmpty() && !result.isError && result.structuredJson.isEmpty()) {
            const QJsonValue made = result.structured.value(QStringLiteral("sandbox_id"));
            if (made.isString())
                p->sandboxId = made.toString().left(64);
        }
        self->complete(p, jsonrpc::serializeResult(p->rpcId, callToolResultJson(result, layout)),
                       result.isError ? QStringLiteral("error") : QStringLiteral("ok"),
                       result.isError ? oneLine(result.message) : QString());
    });
    guard.reset();
    entry->handler(call);
}

void ToolCallRunner::complete(const std::shared_ptr<Pending> &p, const QByteArray &message, const QString &outcome,
                              const QString &detail)
{
    auto calls = m_pending.find(p->scope);
    if (calls == m_pending.end() || calls->value(p->key) != p)
        return;
    calls->remove(p->key);
    if (calls->isEmpty())
        m_pending.erase(calls);
    if (p->modern)
        --m_modernPending;
    audit(Subject{p->sessionId, p->client, p->conversation, p->tool, p->sandboxId, p->summary}, p->startedAt, p->elapsed.elapsed(),
          outcome, detail);
    auto reply = std::move(p->reply);
    if (reply)
        reply(message);
    emit callFinished(p->tool, outcome);
}

void ToolCallRunner::cancel(const QString &scope, const QJsonValue &rpcId, const QString &reason)
{
    const auto p = findPending(scope, rpcId);
    if (!p)
        return;
    const QString why = reason.isEmpty() ? QStringLiteral("cancelled by the client") : oneLine(reason);
    // Answer and forget the call first, so whatever the handler does on cancel goes nowhere.
    complete(p, jsonrpc::serialize(jsonrpc::error(rpcId, jsonrpc::RequestCancelled, QStringLiteral("Request cancelled"))),
             QStringLiteral("cancelled"), why);
    p->token.cancel();
}

void ToolCallRunner::cancelSession(const QString &scope, const QString &reason)
{
    const auto calls = m_pending.value(scope);
    for (const auto &p : calls)
        cancel(scope, p->rpcId, reason);
}

ToolCallRunner::Subject ToolCallRunner::subjectOf(const McpCaller &caller, const QString &tool, const QString &sandboxId,
                                                  const QJsonObject &arguments)
{
    return Subject{caller.sessionId, caller.client.name, caller.conversation, tool, sandboxId,
                   arguments.isEmpty() ? QString() : auditSummary(tool, arguments)};
}

void ToolCallRunner::audit(const Subject &subject, qint64 startedAt, qint64 durationMs, const QString &outcome,
                           const QString &detail)
{
    AuditEntry e;
    e.at = startedAt;
    e.client = subject.client;
    e.session = shortSessionId(subject.sessionId);
    e.conversation = subject.conversation;
    e.tool = subject.tool;
    e.sandboxId = subject.sandboxId;
    e.summary = subject.summary;
    e.durationMs = durationMs;
    e.outcome = outcome;
    e.detail = detail;
    QString error;
    if (!m_audit.record(e, error))
        qCWarning(lcToolCall).noquote() << "cannot write the audit log:" << error;
    else
        emit audited();
}

} // namespace chat2sbx
