#include "tools/ContentDiff.h"

#include <QList>
#include <QStringList>

#include <algorithm>

namespace chat2sbx {
namespace {

constexpr qsizetype kContext = 3;
constexpr int kMaxLineChars = 400;

// Lines without their '\n'; `noNewline` says the last one had none.
QList<QByteArray> lines(const QByteArray &text, bool &noNewline)
{
    noNewline = !text.isEmpty() && !text.endsWith('\n');
    QList<QByteArray> out = text.split('\n');
    if (!noNewline)
        out.removeLast();
    return out;
}

} // namespace

QString contentDiff(const QString &path, const QByteArray &before, const QByteArray &after, bool created, int maxLines)
{
    if (before == after && !created)
        return {};
    bool oldNoNl = false, newNoNl = false;
    const QList<QByteArray> a = lines(before, oldNoNl), b = lines(after, newNoNl);
    // Equal lines at both ends (a last line differing only in its final newline counts as changed).
    qsizetype prefix = 0;
    const qsizetype common = std::min(a.size(), b.size());
    while (prefix < common && a.at(prefix) == b.at(prefix)
           && !((prefix == a.size() - 1 && oldNoNl) != (prefix == b.size() - 1 && newNoNl)))
        ++prefix;
    qsizetype suffix = 0;
    while (suffix < common - prefix && a.at(a.size() - 1 - suffix) == b.at(b.size() - 1 - suffix)
           && !((suffix == 0 && oldNoNl) != (suffix == 0 && newNoNl)))
        ++suffix;
    const qsizetype start = std::max<qsizetype>(0, prefix - kContext);
    const qsizetype oldEnd = std::min(a.size(), a.size() - suffix + kContext);
    const qsizetype newEnd = std::min(b.size(), b.size() - suffix + kContext);
    const qsizetype oldCount = oldEnd - start, newCount = newEnd - start;

    QStringList out{created ? QStringLiteral("--- /dev/null") : QStringLiteral("--- a/%1").arg(path),
                    QStringLiteral("+++ b/%1").arg(path),
                    QStringLiteral("@@ -%1,%2 +%3,%4 @@")
                        .arg(oldCount ? start + 1 : start).arg(oldCount).arg(newCount ? start + 1 : start).arg(newCount)};
    auto line = [&](QChar kind, const QByteArray &l) {
        QString text = QString::fromUtf8(l);
        if (text.size() > kMaxLineChars)
            text = text.left(kMaxLineChars) + QStringLiteral("…");
        out << kind + text;
    };
    for (qsizetype i = start; i < prefix; ++i)
        line(QLatin1Char(' '), a.at(i));
    for (qsizetype i = prefix; i < a.size() - suffix; ++i) {
        line(QLatin1Char('-'), a.at(i));
        if (i == a.size() - 1 && oldNoNl)
            out << QStringLiteral("\\ No newline at end of file");
    }
    for (qsizetype i = prefix; i < b.size() - suffix; ++i) {
        line(QLatin1Char('+'), b.at(i));
        if (i == b.size() - 1 && newNoNl)
            out << QStringLiteral("\\ No newline at end of file");
    }
    for (qsizetype i = a.size() - suffix; i < oldEnd; ++i) {
        line(QLatin1Char(' '), a.at(i));
        if (i == a.size() - 1 && oldNoNl)
            out << QStringLiteral("\\ No newline at end of file");
    }
    if (out.size() > maxLines) {
        out = out.mid(0, maxLines);
        out << QStringLiteral("… (diff truncated)");
    }
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace chat2sbx
