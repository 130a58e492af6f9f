#include "tools/MemoryArgument.h"

#include <QRegularExpression>

namespace chat2sbx {
namespace {

constexpr qint64 kKiB = 1024;
constexpr qint64 kMinMemory = 512 * kKiB * kKiB;   // sbx-contract.md: minimum 512m (v0.43)
constexpr qint64 kMaxMemory = 32 * kKiB * kKiB * kKiB;   // and maximum 32 GiB

} // namespace

bool parseMemoryArgument(const QString &value, QString &normalized, QString &error)
{
    static const QRegularExpression re(QStringLiteral("^([0-9]{1,12})([kmgKMG])$"));
    const QString shown = value.size() > 40 ? value.left(40) + QStringLiteral("…") : value;
    const QString rule = QStringLiteral("use a size like 512m or 4g (a whole number with k, m or g, from 512m to 32g)");
    const QRegularExpressionMatch m = re.match(value);
    if (!m.hasMatch()) {
        error = QStringLiteral("invalid memory \"%1\": %2").arg(shown, rule);
        return false;
    }
    const qint64 n = m.captured(1).toLongLong();
    const QChar unit = m.captured(2).at(0).toLower();
    const qint64 factor = unit == QLatin1Char('k') ? kKiB : unit == QLatin1Char('m') ? kKiB * kKiB : kKiB * kKiB * kKiB;
    const qint64 bytes = n * factor;   // n < 10^12 and factor <= 2^30: no overflow
    if (bytes < kMinMemory || bytes > kMaxMemory) {
        error = QStringLiteral("invalid memory \"%1\": out of range; %2").arg(shown, rule);
        return false;
    }
    normalized = QString::number(n) + unit;
    return true;
}

} // namespace chat2sbx
