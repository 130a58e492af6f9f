#pragma once

#include <QByteArray>
#include <QList>

namespace chat2sbx {

// Splits the helper's stdout into frames (PROTOCOL.md): lines, and raw answers ("… ~<n>\n" then n
// bytes, handed on as the header up to '~' followed by the bytes). Bounds what waits: anything in the
// VM can write to that stdout, so a frame that grows past maxFrameBytes is dropped and reported,
// instead of being buffered until the host runs out of memory.
class HelperFrameReader {
public:
    // Larger than any answer the helper gives (`search` at 5,000 results of 2 KB lines, base64).
    static constexpr qsizetype kDefaultMaxFrameBytes = 32 * 1024 * 1024;

    explicit HelperFrameReader(qsizetype maxFrameBytes = kDefaultMaxFrameBytes) : m_max(maxFrameBytes) {}

    // Appends bytes and returns the complete lines, without their '\n'. Returns false (and drops the
    // unfinished line) when it is longer than the cap; the caller restarts the channel.
    bool feed(const QByteArray &bytes, QList<QByteArray> &lines);
    void clear()
    {
        m_partial.clear();
        m_rawLeft = 0;
    }
    qsizetype pendingBytes() const { return m_partial.size(); }

private:
    qsizetype m_max;
    QByteArray m_partial;
    qsizetype m_rawLeft = 0;   // bytes of a raw answer still to come
};

} // namespace chat2sbx
