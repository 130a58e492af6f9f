#include "tools/UnifiedDiff.h"

#include <QStringList>

#include <algorithm>

namespace chat2sbx {
namespace {

constexpr int kContext = 3;

struct Change {
    int oldLine = 0;           // 0-based first old line of the change
    QList<QByteArray> removed; // whole old lines
    QList<QByteArray> added;   // whole new lines
};

QList<QByteArray> splitLines(const QByteArray &text)
{
    QList<QByteArray> lines = text.split('\n');
    if (!text.isEmpty() && text.endsWith('\n'))
        lines.removeLast();
    if (text.isEmpty())
        lines.clear();
    return lines;
}

} // namespace

QString diffHeaderPath(const QString &workspacePath, bool managedWorkspace, const QString &path)
{
    QString p = path;
    while (p.startsWith(QLatin1String("./")))
        p = p.mid(2);
    if (p.isEmpty() || p.startsWith(QLatin1Char('~')) || p.startsWith(QLatin1Char('/'))) {
        const QString base = managedWorkspace ? QStringLiteral("~/workspace") : workspacePath;
        if (!base.isEmpty() && p.startsWith(base + QLatin1Char('/')))
            return p.mid(base.size() + 1);
        if (managedWorkspace && !workspacePath.isEmpty() && p.startsWith(workspacePath + QLatin1Char('/')))
            return p.mid(workspacePath.size() + 1);
        return p;
    }
    return p;
}

QString replacementDiff(const QString &path, const QByteArray &before, const QList<qsizetype> &matches,
                        const QByteArray &oldText, const QByteArray &newText, int maxLines)
{
    const QList<QByteArray> oldLines = splitLines(before);
    QList<Change> changes;
    qsizetype i = 0;
    while (i < matches.size()) {
        // One region: whole lines of `before` covering this match and any match that shares a line.
        const qsizetype p = matches.at(i);
        const qsizetype a = before.lastIndexOf('\n', p - 1) + 1;   // start of the first touched line
        QByteArray replaced;
        qsizetype cursor = a;
        qsizetype end = 0;
        for (;;) {
            const qsizetype m = matches.at(i);
            replaced += before.mid(cursor, m - cursor) + newText;
            cursor = m + oldText.size();
            ++i;
            // Extend to the end of the line holding the last replaced byte (a region ending exactly at a
            // line boundary on both sides needs nothing more).
            const bool oldAtBoundary = before.at(cursor - 1) == '\n';
            const bool newAtBoundary = replaced.isEmpty() || replaced.endsWith('\n');
            end = cursor;
            if (!(oldAtBoundary && newAtBoundary)) {
                const qsizetype nl = before.indexOf('\n', cursor);
                end = nl < 0 ? before.size() : nl + 1;
            }
            if (i < matches.size() && matches.at(i) < end)
                continue;   // the next match is on a line of this region
            break;
        }
        replaced += before.mid(cursor, end - cursor);
        Change c;
        c.oldLine = static_cast<int>(before.left(a).count('\n'));
        c.removed = splitLines(before.mid(a, end - a));
        c.added = splitLines(replaced);
        changes.append(c);
    }

    QStringList out{QStringLiteral("--- a/%1").arg(path), QStringLiteral("+++ b/%1").arg(path)};
    int delta = 0;   // new line number minus old line number before the current position
    qsizetype ci = 0;
    bool truncated = false;
    while (ci < changes.size() && !truncated) {
        // One hunk: changes whose context windows touch.
        qsizetype last = ci;
        while (last + 1 < changes.size()) {
            const Change &prev = changes.at(last);
            const int prevEnd = prev.oldLine + static_cast<int>(prev.removed.size());
            if (changes.at(last + 1).oldLine - prevEnd > 2 * kContext)
                break;
            ++last;
        }
        const int start = std::max(0, changes.at(ci).oldLine - kContext);
        const Change &lastChange = changes.at(last);
        const int stop = std::min(static_cast<int>(oldLines.size()),
                                  lastChange.oldLine + static_cast<int>(lastChange.removed.size()) + kContext);
        QStringList body;
        int oldCount = 0, newCount = 0;
        int line = start;
        int hunkDelta = delta;
        for (qsizetype k = ci; k <= last; ++k) {
            const Change &c = changes.at(k);
            for (; line < c.oldLine; ++line, ++oldCount, ++newCount)
                body << QStringLiteral(" ") + QString::fromUtf8(oldLines.at(line));
            for (const QByteArray &l : c.removed)
                body << QStringLiteral("-") + QString::fromUtf8(l);
            for (const QByteArray &l : c.added)
                body << QStringLiteral("+") + QString::fromUtf8(l);
            oldCount += static_cast<int>(c.removed.size());
            newCount += static_cast<int>(c.added.size());
            line += static_cast<int>(c.removed.size());
            delta += static_cast<int>(c.added.size()) - static_cast<int>(c.removed.size());
        }
        for (; line < stop; ++line, ++oldCount, ++newCount)
            body << QStringLiteral(" ") + QString::fromUtf8(oldLines.at(line));
        const int oldStart = oldCount ? start + 1 : start;
        const int newStart = newCount ? start + hunkDelta + 1 : start + hunkDelta;
        out << QStringLiteral("@@ -%1,%2 +%3,%4 @@").arg(oldStart).arg(oldCount).arg(newStart).arg(newCount);
        for (const QString &b : body) {
            if (out.size() >= maxLines) {
                truncated = true;
                break;
            }
            out << (b.size() > 400 ? b.left(400) + QStringLiteral("…") : b);
        }
        ci = last + 1;
    }
    if (truncated)
        out << QStringLiteral("… (diff truncated)");
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace chat2sbx
