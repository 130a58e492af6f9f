// One startup probe attempt against the MCP server, as the real client's go-sdk transport does it:
// POST initialize (JSON or SSE answer, Mcp-Session-Id required), then POST
// notifications/initialized with the session and MCP-Protocol-Version headers (202/204 expected).
#pragma once

#include "RunConfig.h"
#include "SseReader.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
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
    void failed(const QString &reason);

private:
    QNetworkRequest request() const;
    void dropReply();
    void onInitializeData();
    void onInitializeFinished();
    void handleInitializeMessage(const QJsonObject &message);
    void onInitializedFinished();
    void fail(const QString &reason);
    bool isEventStream() const;
    int httpStatus() const;

    QUrl m_url;
    QList<HttpHeader> m_headers;
    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_reply;
    SseReader m_sse;
    QByteArray m_body;
    QString m_protocolVersion;
    QByteArray m_sessionId;
};

} // namespace faketunnel
