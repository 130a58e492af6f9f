// Incremental text/event-stream parser: collects the `data:` lines of each event.
#pragma once

#include <QByteArray>
#include <QList>

namespace faketunnel {

class SseReader
{
public:
    // Feeds raw bytes; returns the data of every event completed by them (multi-line data joined by '\n').
    QList<QByteArray> feed(const QByteArray &bytes);
    // End of stream: returns a pending event that had data but no terminating blank line.
    QList<QByteArray> finish();

private:
    void takeLine(const QByteArray &line, QList<QByteArray> *events);

    QByteArray m_buffer;
    QByteArray m_data;
    bool m_hasData = false;
};

} // namespace faketunnel
