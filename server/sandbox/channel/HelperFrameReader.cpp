#include "sandbox/channel/HelperFrameReader.h"

namespace chat2sbx {

namespace {

// "<id> <status> <meta> ~<n>": a raw answer whose n bytes follow the newline. Returns n and the
// position of '~', or -1 when the line is not such a header.
qsizetype rawLength(const QByteArray &line, qsizetype &tilde)
{
    tilde = line.lastIndexOf(' ') + 1;
    if (tilde <= 0 || tilde >= line.size() || line.at(tilde) != '~' || line.size() - tilde - 1 > 10)
        return -1;
    bool ok = false;
    const qlonglong n = line.mid(tilde + 1).toLongLong(&ok);
    return ok && n >= 0 ? qsizetype(n) : -1;
}

} // namespace

bool HelperFrameReader::feed(const QByteArray &bytes, QList<QByteArray> &lines)
{
    qsizetype start = 0;
    while (start < bytes.size()) {
        if (m_rawLeft > 0) {
            const qsizetype take = qMin(m_rawLeft, bytes.size() - start);
            m_partial.append(bytes.constData() + start, take);
            m_rawLeft -= take;
            start += take;
            if (m_rawLeft == 0) {
                lines.append(m_partial);
                m_partial.clear();
            }
            continue;
        }
        const qsizetype nl = bytes.indexOf('\n', start);
        if (nl < 0)
            break;
        if (m_partial.size() + (nl - start) > m_max) {
            m_partial.clear();
            return false;
        }
        QByteArray line = m_partial.isEmpty() ? bytes.mid(start, nl - start) : m_partial + bytes.mid(start, nl - start);
        m_partial.clear();
        start = nl + 1;
        qsizetype tilde = 0;
        const qsizetype raw = rawLength(line, tilde);
        if (raw < 0) {
            lines.append(line);
            continue;
        }
        if (raw > m_max - (tilde + 1))   // the header is handed on with its '~'
            return false;
        // The frame handed on is the header up to '~' and the raw bytes after it (PROTOCOL.md).
        line.truncate(tilde + 1);
        if (raw == 0) {
            lines.append(line);
            continue;
        }
        m_partial = line;
        m_rawLeft = raw;
    }
    if (start < bytes.size()) {
        if (m_partial.size() + (bytes.size() - start) > m_max) {
            m_partial.clear();
            return false;
        }
        m_partial.append(bytes.constData() + start, bytes.size() - start);
    }
    return true;
}

} // namespace chat2sbx
