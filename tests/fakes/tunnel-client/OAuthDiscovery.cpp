#include "OAuthDiscovery.h"

#include "Log.h"

#include <QNetworkProxy>
#include <QNetworkReply>
#include <QRegularExpression>

namespace faketunnel {
namespace {
constexpr int kProbeTimeoutMs = 1000;
constexpr int kFetchTimeoutMs = 5000;
}

OAuthDiscovery::OAuthDiscovery(const QUrl &mcpUrl, const QList<HttpHeader> &headers, QObject *parent)
    : QObject(parent), m_mcpUrl(mcpUrl), m_headers(headers)
{
    m_nam.setProxy(QNetworkProxy::NoProxy);
    QUrl root = mcpUrl;
    root.setQuery(QString());
    root.setFragment(QString());
    const QString path = mcpUrl.path() == QLatin1String("/") ? QString() : mcpUrl.path();
    if (!path.isEmpty()) {
        root.setPath(QStringLiteral("/.well-known/oauth-protected-resource") + path);
        m_candidates << root;
    }
    root.setPath(QStringLiteral("/.well-known/oauth-protected-resource"));
    m_candidates << root;
}

OAuthDiscovery::~OAuthDiscovery() { abort(); }

void OAuthDiscovery::abort()
{
    if (!m_reply)
        return;
    QNetworkReply *reply = m_reply;
    m_reply = nullptr;
    reply->disconnect(this);
    reply->abort();
    reply->deleteLater();
}

QNetworkRequest OAuthDiscovery::request(const QUrl &url) const
{
    QNetworkRequest req(url);
    req.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    req.setRawHeader("User-Agent", "oai-tunnel-client/0.0.13-dev (fake)");
    req.setRawHeader("Accept", "application/json");
    for (const HttpHeader &h : m_headers)
        req.setRawHeader(h.name, h.value);
    return req;
}

void OAuthDiscovery::start() { probeNext(); }

void OAuthDiscovery::probeNext()
{
    if (m_probeMethods.isEmpty())
        return fetchNext();
    const QByteArray method = m_probeMethods.takeFirst();
    QNetworkRequest req = request(m_mcpUrl);
    req.setTransferTimeout(kProbeTimeoutMs);
    m_reply = m_nam.sendCustomRequest(req, method, QByteArray());
    QNetworkReply *reply = m_reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply, method] {
        reply->deleteLater();
        m_reply = nullptr;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        const QString challenge = QString::fromLatin1(reply->rawHeader("WWW-Authenticate"));
        static const QRegularExpression meta(QStringLiteral(R"re((?i)resource_metadata\s*=\s*(?:"([^"]*)"|([^,\s]+)))re"));
        const QRegularExpressionMatch m = meta.match(challenge);
        if (status == 401 && m.hasMatch()) {
            const QUrl url(m.captured(1).isEmpty() ? m.captured(2) : m.captured(1));
            logDebug(QStringLiteral("oauth discovery: resource_metadata from WWW-Authenticate"),
                     {{QStringLiteral("method"), QString::fromLatin1(method)}, {QStringLiteral("url"), url.toString()}});
            m_candidates.prepend(url);
            m_probeMethods.clear();
            return fetchNext();
        }
        if (status == 0)
            logWarn(QStringLiteral("oauth discovery WWW-Authenticate probe failed"),
                    {{QStringLiteral("method"), QString::fromLatin1(method)}, {QStringLiteral("error"), reply->errorString()}});
        probeNext();
    });
}

void OAuthDiscovery::fetchNext()
{
    if (m_candidates.isEmpty()) {
        if (m_allNotFound)
            return emit finished(true, true, QStringLiteral("all candidates returned HTTP 404"));
        return emit finished(false, false, QStringLiteral("oauth discovery: no protected resource metadata (%1)")
                                               .arg(m_attempts.join(QStringLiteral("; "))));
    }
    const QUrl url = m_candidates.takeFirst();
    QNetworkRequest req = request(url);
    req.setTransferTimeout(kFetchTimeoutMs);
    m_reply = m_nam.get(req);
    QNetworkReply *reply = m_reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply, url] {
        reply->deleteLater();
        m_reply = nullptr;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status == 200)
            return emit finished(true, false, QStringLiteral("HTTP 200 from %1").arg(url.toString()));
        if (status != 404)
            m_allNotFound = false;
        m_attempts << QStringLiteral("%1 -> %2").arg(url.toString(), status ? QStringLiteral("HTTP %1").arg(status) : reply->errorString());
        fetchNext();
    });
}

} // namespace faketunnel
