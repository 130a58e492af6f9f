#include "core/Ids.h"

#include <QRandomGenerator>

namespace chat2sbx {

QString randomHex(int bytes)
{
    QByteArray raw(bytes, Qt::Uninitialized);
    QRandomGenerator *rng = QRandomGenerator::system();
    for (int i = 0; i < bytes; ++i)
        raw[i] = static_cast<char>(rng->bounded(256));
    return QString::fromLatin1(raw.toHex());
}

QString newId(const char *prefix)
{
    return QLatin1String(prefix) + randomHex(12);
}

bool isWellFormedId(const QString &id, const char *prefix)
{
    const QLatin1String p(prefix);
    if (!id.startsWith(p) || id.size() != p.size() + 24)
        return false;
    for (int i = p.size(); i < id.size(); ++i) {
        const QChar c = id.at(i);
        if (!((c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'))))
            return false;
    }
    return true;
}

} // namespace chat2sbx
