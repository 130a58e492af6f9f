#include "SseReader.h"

namespace faketunnel {

QList<QByteArray> SseReader::feed(const QByteArray &bytes)
{
    QList<QByteArray> events;
    m_buffer += bytes;
    for (;;) {
        const qsizetype nl = m_buffer.indexOf('\n');
        if (nl < 0)
            break;
        QByteArray line = m_buffer.left(nl);
        m_buffer.remove(0, nl + 1);
        if (line.endsWith('\r'))
            line.chop(1);
        takeLine(line, &events);
    }
    return events;
}

QList<QByteArray> SseReader::finish()
{
    QList<QByteArray> events;
    if (!m_buffer.isEmpty()) {
        takeLine(m_buffer, &events);
        m_buffer.clear();
    }
    takeLine(QByteArray(), &events);
    return events;
}

void SseReader::takeLine(const QByteArray &line, QList<QByteArray> *events)
{
    if (line.isEmpty()) {
        if (m_hasData)
            events->append(m_data);
        m_data.clear();
        m_hasData = false;
        return;
    }
    if (!line.startsWith("data:"))
        return;  // event:, id:, retry: and comments do not matter here
    QByteArray value = line.mid(5);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (m_hasData)
        m_data += '\n';
    m_data += value;
    m_hasData = true;
}

} // namespace faketunnel
