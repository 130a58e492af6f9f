#include "tools/UnifiedDiff.h"

#include <QList>
#include <QStringList>

#include <algorithm>

namespace chat2sbx {
namespace {

constexpr int kContext = 3;
constexpr int kMaxShownLineChars = 400;

struct Change {
    qsizetype oldLine = 0;     // 0-based first old line of the change
    QList<QByteArray> removed; // whole old lines
    QList<QByteArray> added;   // whole new lines
};

QList<QByteArray> splitLines(const QByteArray &text)
{
    if (text.isEmpty())
        return {};
    QList<QByteArray> lines = text.split('\n');
    if (text.endsWith('\n'))
        lines.removeLast();
    return lines;
}

// Where each line of a text starts, for line numbers and context lines in O(log n) each.
class LineIndex {
public:
    // Reads `text` in place: a temporary would dangle.
    explicit LineIndex(QByteArray &&) = delete;
    explicit LineIndex(const QByteArray &text) : m_text(text)
    {
        if (text.isEmpty())
            return;
        m_starts.append(0);
        for (qsizetype nl = text.indexOf('\n'); nl >= 0 && nl + 1 < text.size(); nl = text.indexOf('\n', nl + 1))
            m_starts.append(nl + 1);
    }
    qsizetype count() const { return m_starts.size(); }
    // The line holding byte `pos` (pos < text size).
    qsizetype lineOf(qsizetype pos) const
    {
        return std::upper_bound(m_starts.cbegin(), m_starts.cend(), pos) - m_starts.cbegin() - 1;
    }
    qsizetype start(qsizetype line) const { return m_starts.at(line); }
    QByteArray line(qsizetype line) const
    {
        const qsizetype from = m_starts.at(line);
        qsizetype to = line + 1 < m_starts.size() ? m_starts.at(line + 1) - 1 : m_text.size();
        if (line + 1 == m_starts.size() && m_text.endsWith('\n'))
            --to;
        return m_text.mid(from, to - from);
    }

private:
    const QByteArray &m_text;   // outlives this: the caller's text (a LineIndex is a local)
    QList<qsizetype> m_starts;
};

QString shown(char prefix, const QByteArray &line)
{
    const QString text = QLatin1Char(prefix) + QString::fromUtf8(line);
    return text.size() > kMaxShownLineChars ? text.left(kMaxShownLineChars) + QStringLiteral("…") : text;
}

} // namespace

QString replacementDiff(const QString &path, const QByteArray &before, const QByteArray &oldText,
                        const QByteArray &newText, int maxLines)
{
    const LineIndex lines(before);
    // Every change yields at least one output line, so maxLines + 1 changes are enough to know the
    // diff is truncated.
    QList<Change> changes;
    qsizetype next = oldText.isEmpty() ? -1 : before.indexOf(oldText);
    while (next >= 0 && changes.size() <= maxLines) {
        // One region: whole lines of `before` covering this match and any match that shares a line.
        const qsizetype a = lines.start(lines.lineOf(next));   // start of the first touched line
        QByteArray replaced;
        qsizetype cursor = a;
        qsizetype end = 0;
        for (;;) {
            replaced += QByteArray::fromRawData(before.constData() + cursor, next - cursor);
            replaced += newText;
            cursor = next + oldText.size();
            next = before.indexOf(oldText, cursor);
            // Extend to the end of the line holding the last replaced byte (a region ending exactly at a
            // line boundary on both sides needs nothing more).
            const bool oldAtBoundary = before.at(cursor - 1) == '\n';
            const bool newAtBoundary = replaced.isEmpty() || replaced.endsWith('\n');
            end = cursor;
            if (!(oldAtBoundary && newAtBoundary)) {
                const qsizetype nl = before.indexOf('\n', cursor);
                end = nl < 0 ? before.size() : nl + 1;
            }
            if (next >= 0 && next < end)
                continue;   // the next match is on a line of this region
            break;
        }
        replaced += QByteArray::fromRawData(before.constData() + cursor, end - cursor);
        Change c;
        c.oldLine = lines.lineOf(a);
        c.removed = splitLines(before.mid(a, end - a));
        c.added = splitLines(replaced);
        changes.append(c);
    }

    QStringList out{QStringLiteral("--- a/%1").arg(path), QStringLiteral("+++ b/%1").arg(path)};
    qsizetype delta = 0;   // new line number minus old line number before the current position
    qsizetype ci = 0;
    bool truncated = false;
    while (ci < changes.size() && !truncated) {
        // One hunk: changes whose context windows touch.
        qsizetype last = ci;
        while (last + 1 < changes.size()) {
            const Change &prev = changes.at(last);
            const qsizetype prevEnd = prev.oldLine + prev.removed.size();
            if (changes.at(last + 1).oldLine - prevEnd > 2 * kContext)
                break;
            ++last;
        }
        const qsizetype start = std::max<qsizetype>(0, changes.at(ci).oldLine - kContext);
        const Change &lastChange = changes.at(last);
        const qsizetype stop = std::min(lines.count(), lastChange.oldLine + lastChange.removed.size() + kContext);
        QStringList body;
        qsizetype oldCount = 0, newCount = 0;
        qsizetype line = start;
        const qsizetype hunkDelta = delta;
        for (qsizetype k = ci; k <= last && body.size() < maxLines; ++k) {
            const Change &c = changes.at(k);
            for (; line < c.oldLine; ++line, ++oldCount, ++newCount)
                body << shown(' ', lines.line(line));
            for (const QByteArray &l : c.removed)
                body << shown('-', l);
            for (const QByteArray &l : c.added)
                body << shown('+', l);
            oldCount += c.removed.size();
            newCount += c.added.size();
            line += c.removed.size();
            delta += c.added.size() - c.removed.size();
        }
        for (; line < stop && body.size() < maxLines; ++line, ++oldCount, ++newCount)
            body << shown(' ', lines.line(line));
        const qsizetype oldStart = oldCount ? start + 1 : start;
        const qsizetype newStart = newCount ? start + hunkDelta + 1 : start + hunkDelta;
        out << QStringLiteral("@@ -%1,%2 +%3,%4 @@").arg(oldStart).arg(oldCount).arg(newStart).arg(newCount);
        for (const QString &b : body) {
            if (out.size() >= maxLines) {
                truncated = true;
                break;
            }
            out << b;
        }
        ci = last + 1;
    }
    if (truncated)
        out << QStringLiteral("… (diff truncated)");
    return out.join(QLatin1Char('\n')) + QLatin1Char('\n');
}

} // namespace chat2sbx
