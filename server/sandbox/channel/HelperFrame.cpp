#include "sandbox/channel/HelperFrame.h"

#include <QList>

namespace chat2sbx {

std::optional<HelperFrame> parseHelperFrame(const QByteArray &line)
{
    const QList<QByteArray> f = line.split(' ');
    bool okId = false;
    HelperFrame frame;
    frame.id = f.value(0).toULongLong(&okId);
    if (f.size() != 4 || !okId)
        return std::nullopt;
    frame.ok = f.at(1) == "ok";
    for (const QByteArray &kv : f.at(2).split(';')) {
        const qsizetype eq = kv.indexOf('=');
        if (eq > 0)
            frame.meta.insert(QString::fromUtf8(kv.left(eq)), QString::fromUtf8(kv.mid(eq + 1)));
    }
    const QByteArray &field = f.at(3);
    if (!field.isEmpty() && field != "-")
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
