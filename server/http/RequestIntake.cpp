#include "http/RequestIntake.h"

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

// What QByteArray::simplified() treats as whitespace.
bool isAsciiSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

QByteArray lowerAuthority(const QByteArray &authority)
{
    return authority.trimmed().toLower();
}

} // namespace

std::optional<RequestIntake::Rejection> RequestIntake::checkHead(const QByteArray &rawHead, const Limits &limits)
{
    // Runs for every request: it reads the head in place (views, no copy per line).
    // QtHttpServer skips whitespace left over from a previous request; so do we.
    QByteArrayView rest(rawHead);
    while (!rest.isEmpty() && (rest.front() == '\r' || rest.front() == '\n' || rest.front() == ' '
                               || rest.front() == '\t' || rest.front() == '\v'))
        rest = rest.sliced(1);
    const auto nextLine = [&rest] {
        const qsizetype nl = rest.indexOf('\n');
        const QByteArrayView line = nl < 0 ? rest : rest.first(nl);
        rest = nl < 0 ? QByteArrayView() : rest.sliced(nl + 1);
        return line;
    };
    // The request line: exactly three words (method, target, version) between whitespace.
    const QByteArrayView requestLine = nextLine();
    QByteArrayView target;
    int words = 0;
    for (qsizetype i = 0; i < requestLine.size();) {
        while (i < requestLine.size() && isAsciiSpace(requestLine.at(i)))
            ++i;
        if (i >= requestLine.size())
            break;
        const qsizetype wordStart = i;
        while (i < requestLine.size() && !isAsciiSpace(requestLine.at(i)))
            ++i;
        if (++words == 2)
            target = requestLine.sliced(wordStart, i - wordStart);
    }
    if (words != 3)
        return Rejection{400, QStringLiteral("Bad Request: malformed request line")};

    qint64 contentLength = -1;
    bool sawLength = false;
    QByteArrayView host;
    while (!rest.isEmpty()) {
        const QByteArrayView line = nextLine().trimmed();
        if (line.isEmpty())
            break;
        const qsizetype colon = line.indexOf(':');
        if (colon <= 0)
            continue;   // QtHttpServer ignores it as well
        const QByteArrayView name = line.first(colon).trimmed();
        const QByteArrayView value = line.sliced(colon + 1).trimmed();
        if (name.compare("content-length", Qt::CaseInsensitive) == 0) {
            bool ok = false;
            const qint64 length = value.toLongLong(&ok);
            if (!ok || length < 0 || (sawLength && length != contentLength))
                return Rejection{400, QStringLiteral("Bad Request: invalid Content-Length")};
            contentLength = length;
            sawLength = true;
        } else if (name.compare("host", Qt::CaseInsensitive) == 0) {
            host = value;
        }
    }
    if (contentLength > limits.maxBodyBytes)
        return Rejection{413, QStringLiteral("Payload Too Large: the body is %1 bytes; the limit is %2 bytes")
                                  .arg(contentLength).arg(limits.maxBodyBytes)};
    if (!target.startsWith('/') && target != "*") {
        // Absolute form: QtHttpServer would replace its authority with the Host header, so a
        // request for another host would pass the Host check. Only the same authority is accepted.
        const QUrl url = QUrl::fromEncoded(target.toByteArray(), QUrl::StrictMode);
        if (!url.isValid() || url.scheme().isEmpty() || url.authority().isEmpty())
            return Rejection{400, QStringLiteral("Bad Request: malformed request target")};
        if (lowerAuthority(url.authority(QUrl::FullyEncoded).toUtf8()) != lowerAuthority(host.toByteArray()))
            return Rejection{400, QStringLiteral("Bad Request: the request target names another host than the Host header")};
    }
    return std::nullopt;
}

std::optional<RequestIntake::Rejection> RequestIntake::inspectHead()
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

std::optional<RequestIntake::Rejection> RequestIntake::onBytes(qsizetype count, const QByteArray &bytes)
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

std::optional<RequestIntake::Rejection> RequestIntake::onRequestTaken(const QByteArray &leftover)
{
    m_head.clear();
    m_headDone = false;
    m_sinceRequest = 0;
    if (leftover.isEmpty())
        return std::nullopt;
    return onBytes(leftover.size(), leftover);
}

} // namespace chat2sbx
