#include "sandbox/channel/HelperFrameReader.h"

namespace chat2sbx {

bool HelperFrameReader::feed(const QByteArray &bytes, QList<QByteArray> &lines)
{
    qsizetype start = 0;
    for (qsizetype nl = bytes.indexOf('\n'); nl >= 0; nl = bytes.indexOf('\n', start)) {
        if (m_partial.size() + (nl - start) > m_max) {
            m_partial.clear();
            return false;
        }
        if (m_partial.isEmpty()) {
            lines.append(bytes.mid(start, nl - start));
        } else {
            m_partial.append(bytes.constData() + start, nl - start);
            lines.append(m_partial);
            m_partial.clear();
        }
        start = nl + 1;
    }
    if (m_partial.size() + (bytes.size() - start) > m_max) {
        m_partial.clear();
        return false;
    }
    m_partial.append(bytes.constData() + start, bytes.size() - start);
    return true;
}

} // namespace chat2sbx
