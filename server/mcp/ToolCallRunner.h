#pragma once

#include "mcp/McpClient.h"
#include "mcp/ResultText.h"
#include "mcp/Tool.h"

#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QObject>

#include <functional>
#include <memory>

namespace chat2sbx {

class AuditSink;
class Clock;
class ToolRegistry;

// Runs tools/call requests: checks params and arguments (SchemaValidator), starts the handler,
// keeps the call pending until the handler answers (any time later), turns the ToolResult into a
// CallToolResult, cancels on notifications/cancelled or session end, and writes one audit row per
// call when it finishes (AuditSink). It holds the only record of which calls are pending.
// Calls are grouped by scope: a legacy session's id, or a scope of its own for each modern
// (sessionless) request, whose request ids are not unique across conversations.
class ToolCallRunner : public QObject {
    Q_OBJECT
public:
    // Receives the JSON-RPC response (result or error) for the request, exactly once.
    using Reply = std::function<void(const QByteArray &message)>;

    ToolCallRunner(ToolRegistry &tools, AuditSink &audit, const Clock &clock, QObject *parent = nullptr);
    ~ToolCallRunner() override;

    static constexpr int kMaxPendingPerSession = 32;
    // Modern requests have no session: this bounds all of them together.
    static constexpr int kMaxPendingModern = 64;

    // `scope` is the caller's session id (legacy) or newModernScope() (modern).
    void call(const QString &scope, const McpCaller &caller, const QJsonValue &rpcId, const QJsonObject &params, Reply reply);
    // A scope no other call has: one per modern request.
    QString newModernScope();
    bool isPending(const QString &scope, const QJsonValue &rpcId) const;
    int pendingCount(const QString &scope) const;
    int modernPendingCount() const { return m_modernPending; }
    // The request gets JSON-RPC error -32800 at once; then the handler's token is cancelled, so its
    // wait (e.g. a bash yield) ends early. Unknown ids: no-op.
    void cancel(const QString &scope, const QJsonValue &rpcId, const QString &reason);
    void cancelSession(const QString &scope, const QString &reason);

    // How a tool's results are laid out (docs/TOOL_CARDS.md).
    struct ResultLayout {
        bool hasOutputSchema = false;
        QStringList payloadFields = {};   // ToolPresentation::payloadFields
        ResultTextForm form = ResultTextForm::Full;
        QString cardTool = {};            // the tool's name in _meta, shown in the card's header
        ToolCardView cardView = ToolCardView::None;   // not None: the tool card draws it; _meta names tool and view
        bool modern = false;              // 2026-07-28: resultType and the server's identity in _meta
    };

    // {_meta?, content:[{type:text,text}], structuredContent, isError}. A success's text is
    // resultText() of its structured result (ResultText.h); an error's text is its message. An error of
    // a tool that declares an outputSchema carries no structuredContent (clients validate any
    // structuredContent against that schema, errors included); its details are appended to the text.
    static QByteArray callToolResultJson(const ToolResult &result, const ResultLayout &layout);
    static QByteArray callToolResultJson(const ToolResult &result, bool hasOutputSchema = false)
    {
        return callToolResultJson(result, ResultLayout{hasOutputSchema});
    }

signals:
    // Emitted after a call finished and its audit row was written (tests wait on it).
    void callFinished(const QString &tool, const QString &outcome);
    // An audit row was written (the activity view re-reads the recent calls).
    void audited();

private:
    struct Pending {
        QString key;             // jsonrpc::idKey of rpcId
        QString scope;
        QString sessionId;
        QJsonValue rpcId;
        QString tool;
        QString sandboxId;
        QString client;
        QString conversation;
        QString summary;
        qint64 startedAt = 0;
        bool modern = false;
        QElapsedTimer elapsed;
        CancellationToken token;
        Reply reply;
    };

    std::shared_ptr<Pending> findPending(const QString &scope, const QJsonValue &rpcId) const;
    void complete(const std::shared_ptr<Pending> &call, const QByteArray &message, const QString &outcome,
                  const QString &detail);
    // Who and what a row is about; the rest is per outcome.
    struct Subject {
        QString sessionId;
        QString client;
        QString conversation;
        QString tool;
        QString sandboxId;
        QString summary;
    };
    static Subject subjectOf(const McpCaller &caller, const QString &tool, const QString &sandboxId,
                             const QJsonObject &arguments = {});
    void audit(const Subject &subject, qint64 startedAt, qint64 durationMs, const QString &outcome, const QString &detail);

    // Outlive this: Controller (runtime/Controller.h) owns this after its Services and the clock.
    ToolRegistry &m_tools;
    AuditSink &m_audit;
    const Clock &m_clock;
    // scope -> request id key -> call
    QHash<QString, QHash<QString, std::shared_ptr<Pending>>> m_pending;
    int m_modernPending = 0;
    quint64 m_modernScopes = 0;
};

} // namespace chat2sbx
