// Start-up OAuth protected-resource discovery as pkg/oauth/resource_meta.go does it: POST then GET the
// MCP URL looking for a 401 whose WWW-Authenticate carries resource_metadata, then GET
// /.well-known/oauth-protected-resource<path> and /.well-known/oauth-protected-resource. Discovery is
// "optional" (no OAuth, ready) only if every candidate answered 404; a 200 selects the metadata;
// anything else (401, 403, 405, 5xx, no answer) fails discovery and keeps /readyz at 503.
#pragma once

#include "RunConfig.h"

#include <QList>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QUrl>

class QNetworkReply;

namespace faketunnel {

class OAuthDiscovery : public QObject
{
    Q_OBJECT
public:
    OAuthDiscovery(const QUrl &mcpUrl, const QList<HttpHeader> &headers, QObject *parent = nullptr);
    ~OAuthDiscovery() override;
    void start();
    void abort();

signals:
    // optional: no protected-resource metadata is advertised (every candidate 404).
    void finished(bool ok, bool optional, const QString &detail);

private:
    void probeNext();
    void fetchNext();
    QNetworkRequest request(const QUrl &url) const;

    QUrl m_mcpUrl;
    QList<HttpHeader> m_headers;
    QNetworkAccessManager m_nam;
    QPointer<QNetworkReply> m_reply;
    QList<QByteArray> m_probeMethods{"POST", "GET"};
    QList<QUrl> m_candidates;
    QStringList m_attempts;   // "url -> status" for the failure message
    bool m_allNotFound = true;
};

} // namespace faketunnel
