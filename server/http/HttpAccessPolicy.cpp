#include "http/HttpAccessPolicy.h"

#include "config/Config.h"
#include "core/LogText.h"
#include "http/QtHttpCompat.h"

#include <QHostAddress>
#include <QHttpServerRequest>
#include <QLoggingCategory>
#include <QUrl>

namespace chat2sbx {

Q_LOGGING_CATEGORY(lcMcpGuard, "chat2sbx.mcp.guard")

HttpRequestData HttpRequestData::from(const QHttpServerRequest &request)
{
    HttpRequestData d;
    switch (request.method()) {
    case QHttpServerRequest::Method::Get: d.method = "GET"; break;
    case QHttpServerRequest::Method::Post: d.method = "POST"; break;
    case QHttpServerRequest::Method::Delete: d.method = "DELETE"; break;
    case QHttpServerRequest::Method::Put: d.method = "PUT"; break;
    case QHttpServerRequest::Method::Head: d.method = "HEAD"; break;
    case QHttpServerRequest::Method::Options: d.method = "OPTIONS"; break;
    case QHttpServerRequest::Method::Patch: d.method = "PATCH"; break;
    default: d.method = "OTHER"; break;
    }
    d.path = request.url().path();
    d.headers = qthttp::requestHeaders(request);
    for (auto &h : d.headers) {
        if (!h.first.isLower())
            h.first = h.first.toLower();
    }
    d.body = request.body();
    return d;
}

QByteArray HttpRequestData::header(const QByteArray &lowerName) const
{
    QByteArray value;
    bool found = false;
    for (const auto &h : headers) {
        if (h.first != lowerName)
            continue;
        if (found)
            value += ", ";
        value += h.second;
        found = true;
    }
    return value;
}

bool HttpRequestData::hasHeader(const QByteArray &lowerName) const
{
    for (const auto &h : headers) {
        if (h.first == lowerName)
            return true;
    }
    return false;
}

HttpAccessPolicy::HttpAccessPolicy(const Config &config, QString localToken)
    : m_allowedHosts(config.allowedHosts),
      m_allowedOrigins(config.allowedOrigins),
      m_requireBearer(!config.isLoopbackBind()),
      m_bearerToken(config.bearerToken.toUtf8()),
      m_localTokenHeader(config.localTokenHeader.toLower().toUtf8()),
      m_localTokenHeaderName(config.localTokenHeader),
      m_localToken(config.requireLocalToken ? localToken.toUtf8() : QByteArray())
{
    if (!config.isLoopbackBind())
        m_allowedHosts << config.host;
    for (QString &h : m_allowedHosts)
        h = h.trimmed().toLower();
    for (QString &o : m_allowedOrigins)
        o = o.trimmed().toLower();
}

bool HttpAccessPolicy::isLoopbackHostName(const QString &host)
{
    if (host == QLatin1String("localhost") || host.endsWith(QLatin1String(".localhost")))
        return true;
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

QString HttpAccessPolicy::hostPart(const QString &hostHeader)
{
    const QString h = hostHeader.trimmed().toLower();
    if (h.startsWith(QLatin1Char('['))) {
        const int close = h.indexOf(QLatin1Char(']'));
        return close < 0 ? QString() : h.mid(1, close - 1);
    }
    const int colon = h.indexOf(QLatin1Char(':'));
    return colon < 0 ? h : h.left(colon);
}

bool HttpAccessPolicy::hostAllowed(const QString &hostHeader) const
{
    const QString host = hostPart(hostHeader);
    if (host.isEmpty())
        return false;
    if (isLoopbackHostName(host))
        return true;
    const QString full = hostHeader.trimmed().toLower();
    return m_allowedHosts.contains(full) || m_allowedHosts.contains(host);
}

bool HttpAccessPolicy::originAllowed(const QString &origin) const
{
    const QString o = origin.trimmed().toLower();
    if (m_allowedOrigins.contains(o))
        return true;
    const QUrl url(o);
    if (!url.isValid() || (url.scheme() != QLatin1String("http") && url.scheme() != QLatin1String("https")))
        return false;
    return isLoopbackHostName(url.host());
}

bool HttpAccessPolicy::constantTimeEquals(const QByteArray &a, const QByteArray &b)
{
    unsigned char diff = a.size() == b.size() ? 0 : 1;
    const qsizetype n = qMin(a.size(), b.size());
    for (qsizetype i = 0; i < n; ++i)
        diff |= static_cast<unsigned char>(a.at(i) ^ b.at(i));
    return diff == 0 && !b.isEmpty();
}

std::optional<HttpRejection> HttpAccessPolicy::checkAccess(const HttpRequestData &request) const
{
    const QString host = QString::fromUtf8(request.header("host"));
    if (!hostAllowed(host)) {
        qCWarning(lcMcpGuard).noquote() << "rejected a request with Host" << (host.isEmpty() ? QStringLiteral("(none)") : logSafe(host))
                                        << "(not loopback and not in CHAT2SBX_ALLOWED_HOSTS)";
        return HttpRejection{403, QStringLiteral("Forbidden: Host header not allowed"), {}};
    }
    if (request.hasHeader("origin")) {
        const QString origin = QString::fromUtf8(request.header("origin"));
        if (!originAllowed(origin)) {
            qCWarning(lcMcpGuard).noquote() << "rejected a request with Origin" << logSafe(origin)
                                            << "(not loopback and not in CHAT2SBX_ALLOWED_ORIGINS)";
            return HttpRejection{403, QStringLiteral("Forbidden: Origin not allowed"), {}};
        }
    }
    if (m_requireBearer) {
        const QByteArray auth = request.header("authorization").trimmed();
        const bool ok = auth.size() > 7 && auth.left(7).toLower() == "bearer "
                        && constantTimeEquals(auth.mid(7).trimmed(), m_bearerToken);
        if (!ok)
            return HttpRejection{401, QStringLiteral("Unauthorized: a valid bearer token is required"),
                                 QByteArrayLiteral("Bearer realm=\"chat2sbx\"")};
    }
    if (!m_localToken.isEmpty()) {
        if (!constantTimeEquals(request.header(m_localTokenHeader).trimmed(), m_localToken))
            return HttpRejection{401, QStringLiteral("Unauthorized: missing or wrong %1 header")
                                          .arg(m_localTokenHeaderName), {}};
    }
    return std::nullopt;
}

namespace {
// The media types of an Accept or Content-Type value, lower-case, parameters dropped.
QList<QByteArray> mediaTypes(const QByteArray &value)
{
    QList<QByteArray> types;
    for (const QByteArray &part : value.split(','))
        types << part.split(';').first().trimmed().toLower();
    return types;
}
} // namespace

bool HttpAccessPolicy::acceptsJsonAndSse(const QByteArray &accept)
{
    if (accept.trimmed().isEmpty())
        return true;   // no Accept: anything is acceptable
    bool json = false;
    bool sse = false;
    for (const QByteArray &t : mediaTypes(accept)) {
        json = json || t == "application/json" || t == "application/*" || t == "*/*";
        sse = sse || t == "text/event-stream" || t == "text/*" || t == "*/*";
    }
    return json && sse;
}

bool HttpAccessPolicy::isJsonContentType(const QByteArray &contentType)
{
    const QList<QByteArray> types = mediaTypes(contentType);
    return types.size() == 1 && types.first() == "application/json";
}

} // namespace chat2sbx
