#pragma once

#include <QByteArray>
#include <QList>

namespace chat2sbx {

// Splits the helper's stdout into lines (frames, PROTOCOL.md) and bounds what waits for a newline:
// anything in the VM can write to that stdout, so a line that grows past maxFrameBytes is dropped and
// reported, instead of being buffered until the host runs out of memory.
class HelperFrameReader {
public:
    // Larger than any answer the helper gives (`search` at 5,000 results of 2 KB lines, base64).
    static constexpr qsizetype kDefaultMaxFrameBytes = 32 * 1024 * 1024;

    explicit HelperFrameReader(qsizetype maxFrameBytes = kDefaultMaxFrameBytes) : m_max(maxFrameBytes) {}

    // Appends bytes and returns the complete lines, without their '\n'. Returns false (and drops the
    // unfinished line) when it is longer than the cap; the caller restarts the channel.
    bool feed(const QByteArray &bytes, QList<QByteArray> &lines);
    void clear() { m_partial.clear(); }
    qsizetype pendingBytes() const { return m_partial.size(); }

private:
    qsizetype m_max;
    QByteArray m_partial;
};

} // namespace chat2sbx
