#pragma once

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
class ToolCallRunner : public QObject {
    Q_OBJECT
public:
    // Receives the JSON-RPC response (result or error) for the request, exactly once.
    using Reply = std::function<void(const QByteArray &message)>;

    ToolCallRunner(ToolRegistry &tools, AuditSink &audit, const Clock &clock, QObject *parent = nullptr);
    ~ToolCallRunner() override;

    static constexpr int kMaxPendingPerSession = 32;

    void call(const QString &sessionId, const QJsonValue &rpcId, const QJsonObject &params, Reply reply,
              const QString &clientName = {});
    // Who a session is (the client name from initialize), for the audit rows; unset: unnamed.
    void setClientNameLookup(std::function<QString(const QString &sessionId)> lookup) { m_clientName = std::move(lookup); }
    bool isPending(const QString &sessionId, const QJsonValue &rpcId) const;
    int pendingCount(const QString &sessionId) const;
    // The request gets JSON-RPC error -32800 at once; then the handler's token is cancelled, so its
    // wait (e.g. a bash yield) ends early. Unknown ids: no-op.
    void cancel(const QString &sessionId, const QJsonValue &rpcId, const QString &reason);
    void cancelSession(const QString &sessionId, const QString &reason);

    // How a tool's results are laid out (docs/TOOL_CARDS.md).
    struct ResultLayout {
        bool hasOutputSchema = false;
        QStringList payloadFields = {};   // ToolPresentation::payloadFields
        ResultTextForm form = ResultTextForm::Full;
        QString cardTool = {};            // non-empty: the tool card draws it; _meta names the tool
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
        QString sessionId;
        QJsonValue rpcId;
        QString tool;
        QString sandboxId;
        QString client;
        QString summary;
        qint64 startedAt = 0;
        QElapsedTimer elapsed;
        CancellationToken token;
        Reply reply;
    };

    std::shared_ptr<Pending> findPending(const QString &sessionId, const QJsonValue &rpcId) const;
    void complete(const std::shared_ptr<Pending> &call, const QByteArray &message, const QString &outcome,
                  const QString &detail);
    // Who and what a row is about; the rest is per outcome.
    struct Subject {
        QString sessionId;
        QString client;
        QString tool;
        QString sandboxId;
        QString summary;
    };
    Subject subjectOf(const QString &sessionId, const QString &tool, const QString &sandboxId,
                      const QJsonObject &arguments = {}) const;
    void audit(const Subject &subject, qint64 startedAt, qint64 durationMs, const QString &outcome, const QString &detail);

    ToolRegistry &m_tools;
    AuditSink &m_audit;
    const Clock &m_clock;
    std::function<QString(const QString &)> m_clientName;
    // session id -> request id key -> call
    QHash<QString, QHash<QString, std::shared_ptr<Pending>>> m_pending;
};

} // namespace chat2sbx
