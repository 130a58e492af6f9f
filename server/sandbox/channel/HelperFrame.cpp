#include "sandbox/channel/HelperFrame.h"

#include <QList>

namespace chat2sbx {

std::optional<HelperFrame> parseHelperFrame(const QByteArray &line)
{
    // "<id> <status> <meta> <data>": data is base64 or "-", or "~" and the raw bytes (any byte but NUL).
    const qsizetype s1 = line.indexOf(' ');
    const qsizetype s2 = s1 < 0 ? -1 : line.indexOf(' ', s1 + 1);
    const qsizetype s3 = s2 < 0 ? -1 : line.indexOf(' ', s2 + 1);
    if (s3 < 0)
        return std::nullopt;
    bool okId = false;
    HelperFrame frame;
    frame.id = line.left(s1).toULongLong(&okId);
    if (!okId)
        return std::nullopt;
    const QByteArray field = line.mid(s3 + 1);
    const bool raw = field.startsWith('~');
    if (!raw && field.contains(' '))
        return std::nullopt;
    frame.ok = line.mid(s1 + 1, s2 - s1 - 1) == "ok";
    for (const QByteArray &kv : line.mid(s2 + 1, s3 - s2 - 1).split(';')) {
        const qsizetype eq = kv.indexOf('=');
        if (eq > 0)
            frame.meta.insert(QString::fromUtf8(kv.left(eq)), QString::fromUtf8(kv.mid(eq + 1)));
    }
    if (raw)
        frame.data = field.mid(1);
    else if (!field.isEmpty() && field != "-")
        frame.data = QByteArray::fromBase64(field);
    return frame;
}

QByteArray encodeHelperRequest(quint64 id, const QByteArray &op, const QList<QByteArray> &args)
{
    QByteArray blob;
    for (const QByteArray &a : args)
        blob += QByteArray::number(a.size()) + '\n' + a;
    const bool raw = !blob.contains('\0');
    const QByteArray body = raw ? blob : blob.toBase64() + '\n';
    return QByteArray::number(id) + ' ' + op + ' ' + QByteArray::number(body.size()) + (raw ? " raw\n" : "\n") + body;
}

} // namespace chat2sbx
