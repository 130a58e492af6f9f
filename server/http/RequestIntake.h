#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace chat2sbx {

// What one HTTP connection may make the server hold before a request is complete, checked on the
// raw bytes before QtHttpServer buffers them (QtHttpServer 6.4 keeps a whole request, body included,
// in memory, twice, before any handler sees it):
// - the request head (request line + headers) is at most maxHeadBytes (else 431);
// - a Content-Length above maxBodyBytes is refused as soon as the head is complete, before the body
//   is read (413);
// - without a Content-Length (chunked, or junk), at most maxHeadBytes + maxBodyBytes arrive between
//   two requests (413);
// - an absolute-form request target ("POST http://host/mcp") must name the same authority as the
//   Host header, which is what the Host check then looks at (400).
// Pure: the connection code feeds it byte counts and, while the head is incomplete, the bytes.
class RequestIntake {
public:
    struct Limits {
        qsizetype maxHeadBytes = 64 * 1024;
        qsizetype maxBodyBytes = 4 * 1024 * 1024;
    };
    struct Rejection {
        int status = 400;
        QString message;
    };

    explicit RequestIntake(const Limits &limits) : m_limits(limits) {}

    // True while the request head is incomplete: then onBytes() needs the bytes themselves.
    bool wantsBytes() const { return !m_headDone; }
    // `count` new bytes arrived; `bytes` holds them when wantsBytes() was true (else may be empty).
    std::optional<Rejection> onBytes(qsizetype count, const QByteArray &bytes);
    // The server took a complete request; `leftover` is what already arrived of the next one.
    std::optional<Rejection> onRequestTaken(const QByteArray &leftover);

    qsizetype bytesSinceRequest() const { return m_sinceRequest; }
    qsizetype budget() const { return m_limits.maxHeadBytes + m_limits.maxBodyBytes; }

    // Checks a complete head (up to and including the blank line). Exposed for tests and fuzzing.
    static std::optional<Rejection> checkHead(const QByteArray &head, const Limits &limits);

private:
    std::optional<Rejection> inspectHead();

    Limits m_limits;
    QByteArray m_head;
    bool m_headDone = false;
    qsizetype m_sinceRequest = 0;
};

} // namespace chat2sbx
