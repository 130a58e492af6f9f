#include "sandbox/HelperFrame.h"

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

} // namespace chat2sbx
