#pragma once

#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>

#include <optional>

class QHttpServerRequest;

namespace chat2sbx {

struct Config;

// What the MCP endpoint keeps of a request. QtHttpServer reuses its request object for the next
// request on the connection, so anything needed later is copied here. Header names are lower-case.
struct HttpRequestData {
    QByteArray method;
    QString path;
    // In arrival order, names in lower case. A list, not a hash: a request has a handful, each read
    // once or twice, and hashing them cost more than the scans.
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;

    static HttpRequestData from(const QHttpServerRequest &request);
    // A repeated header's values are combined with ", ", as HTTP defines.
    QByteArray header(const QByteArray &lowerName) const;
    bool hasHeader(const QByteArray &lowerName) const;
};

struct HttpRejection {
    int status = 400;
    QString message;
    QByteArray wwwAuthenticate;   // set for bearer-token failures only
};

// The connection-level rules of /mcp, checked before anything is parsed as JSON-RPC:
// Host (loopback, the bind address or Config::allowedHosts; DNS rebinding), Origin (absent,
// loopback or Config::allowedOrigins; else 403), the bearer token on a non-loopback bind and the
// optional local shared-secret header.
class HttpAccessPolicy {
public:
    HttpAccessPolicy(const Config &config, QString localToken);

    std::optional<HttpRejection> checkAccess(const HttpRequestData &request) const;

    static bool isLoopbackHostName(const QString &host);
    // "host[:port]" / "[v6]:port" -> host, lower-case.
    static QString hostPart(const QString &hostHeader);
    static bool acceptsJsonAndSse(const QByteArray &accept);
    static bool isJsonContentType(const QByteArray &contentType);
    static bool constantTimeEquals(const QByteArray &a, const QByteArray &b);

private:
    bool hostAllowed(const QString &hostHeader) const;
    bool originAllowed(const QString &origin) const;

    QStringList m_allowedHosts;
    QStringList m_allowedOrigins;
    bool m_requireBearer = false;
    QByteArray m_bearerToken;
    QByteArray m_localTokenHeader;        // lower-case, for lookup
    QString m_localTokenHeaderName;       // as configured, for messages
    QByteArray m_localToken;      // empty: not required
};

} // namespace chat2sbx
