#include "mcp/HttpIntake.h"

#include <QList>
#include <QUrl>

namespace chat2sbx {
namespace {

// The end of the head: the first empty line (CRLF or bare LF line endings), or -1.
qsizetype headEnd(const QByteArray &bytes)
{
    for (qsizetype nl = bytes.indexOf('\n'); nl >= 0; nl = bytes.indexOf('\n', nl + 1)) {
        if (nl + 1 < bytes.size() && bytes.at(nl + 1) == '\n')
            return nl + 2;
        if (nl + 2 < bytes.size() && bytes.at(nl + 1) == '\r' && bytes.at(nl + 2) == '\n')
            return nl + 3;
    }
    return -1;
}

QByteArray lowerAuthority(const QByteArray &authority)
{
    return authority.trimmed().toLower();
}

} // namespace

std::optional<HttpIntake::Rejection> HttpIntake::checkHead(const QByteArray &rawHead, const Limits &limits)
{
    // QtHttpServer skips whitespace left over from a previous request; so do we.
    qsizetype from = 0;
    while (from < rawHead.size() && (rawHead.at(from) == '\r' || rawHead.at(from) == '\n' || rawHead.at(from) == ' '
                                     || rawHead.at(from) == '\t' || rawHead.at(from) == '\v'))
        ++from;
    const QList<QByteArray> lines = rawHead.mid(from).split('\n');
    if (lines.isEmpty())
        return Rejection{400, QStringLiteral("Bad Request: empty request")};
    const QList<QByteArray> requestLine = lines.first().trimmed().simplified().split(' ');
    if (requestLine.size() != 3)
        return Rejection{400, QStringLiteral("Bad Request: malformed request line")};
    const QByteArray &target = requestLine.at(1);

    qint64 contentLength = -1;
    bool sawLength = false;
    QByteArray host;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        if (line.isEmpty())
            break;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;   // QtHttpServer ignores it as well
        const QByteArray name = line.left(colon).trimmed().toLower();
        const QByteArray value = line.mid(colon + 1).trimmed();
        if (name == "content-length") {
            bool ok = false;
            const qint64 length = value.toLongLong(&ok);
            if (!ok || length < 0 || (sawLength && length != contentLength))
                return Rejection{400, QStringLiteral("Bad Request: invalid Content-Length")};
            contentLength = length;
            sawLength = true;
        } else if (name == "host") {
            host = value;
        }
    }
    if (contentLength > limits.maxBodyBytes)
        return Rejection{413, QStringLiteral("Payload Too Large: the body is %1 bytes; the limit is %2 bytes")
                                  .arg(contentLength).arg(limits.maxBodyBytes)};
    if (!target.startsWith('/') && target != "*") {
        // Absolute form: QtHttpServer would replace its authority with the Host header, so a
        // request for another host would pass the Host check. Only the same authority is accepted.
        const QUrl url = QUrl::fromEncoded(target, QUrl::StrictMode);
        if (!url.isValid() || url.scheme().isEmpty() || url.authority().isEmpty())
            return Rejection{400, QStringLiteral("Bad Request: malformed request target")};
        if (lowerAuthority(url.authority(QUrl::FullyEncoded).toUtf8()) != lowerAuthority(host))
            return Rejection{400, QStringLiteral("Bad Request: the request target names another host than the Host header")};
    }
    return std::nullopt;
}

std::optional<HttpIntake::Rejection> HttpIntake::inspectHead()
{
    const qsizetype end = headEnd(m_head);
    if (end < 0) {
        if (m_head.size() > m_limits.maxHeadBytes)
            return Rejection{431, QStringLiteral("Request Header Fields Too Large: the limit is %1 bytes")
                                      .arg(m_limits.maxHeadBytes)};
        return std::nullopt;
    }
    if (end > m_limits.maxHeadBytes)
        return Rejection{431, QStringLiteral("Request Header Fields Too Large: the limit is %1 bytes")
                                  .arg(m_limits.maxHeadBytes)};
    m_headDone = true;
    const QByteArray head = m_head.left(end);
    m_head.clear();
    return checkHead(head, m_limits);
}

std::optional<HttpIntake::Rejection> HttpIntake::onBytes(qsizetype count, const QByteArray &bytes)
{
    m_sinceRequest += count;
    if (!m_headDone) {
        m_head += bytes;
        if (const auto rejection = inspectHead())
            return rejection;
    }
    if (m_sinceRequest > budget())
        return Rejection{413, QStringLiteral("Payload Too Large: the limit is %1 bytes").arg(m_limits.maxBodyBytes)};
    return std::nullopt;
}

std::optional<HttpIntake::Rejection> HttpIntake::onRequestTaken(const QByteArray &leftover)
{
    m_head.clear();
    m_headDone = false;
    m_sinceRequest = 0;
    if (leftover.isEmpty())
        return std::nullopt;
    return onBytes(leftover.size(), leftover);
}

} // namespace chat2sbx
