// One start-up probe attempt against the MCP server, as the real client's go-sdk transport does it
// (pkg/mcpclient/fxmodule.go): POST initialize (JSON or SSE answer, Mcp-Session-Id required), then POST
// notifications/initialized with the session and MCP-Protocol-Version headers (202/204 expected), then
// DELETE to close the session. The whole attempt has 2 s (defaultProbeTimeout).
#pragma once

#include "RunConfig.h"
#include "SseReader.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QString>
#include <QUrl>

class QNetworkReply;

namespace faketunnel {

class McpProbe : public QObject
{
    Q_OBJECT
public:
    McpProbe(const QUrl &url, const QList<HttpHeader> &headers, QObject *parent = nullptr);
    ~McpProbe() override;

    void start();  // starts one attempt; exactly one of succeeded/failed follows
    void abort();  // drops an attempt in flight without signalling

signals:
    void succeeded(const QString &protocolVersion, const QByteArray &sessionId);
    // retryable: a refused connection, the only failure --mcp.startup-wait-timeout retries.
    void failed(const QString &reason, bool retryable);
    void timedOut();

private:
    QNetworkRequest request() const;
    void dropReply();
    void onInitializeData();
    void onInitializeFinished();
    void handleInitializeMessage(const QJsonObject &message);
    void onInitializedFinished();
    void fail(const QString &reason, bool retryable = false);
    bool isEventStream() const;
    int httpStatus() const;

    QUrl m_url;
    QList<HttpHeader> m_headers;
    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_reply;
    QTimer m_deadline;
    SseReader m_sse;
    QByteArray m_body;
    QString m_protocolVersion;
    QByteArray m_sessionId;
};

} // namespace faketunnel
