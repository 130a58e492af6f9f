#include "tools/PatchApplier.h"

#include <QStringList>

#include <algorithm>
#include <functional>

namespace chat2sbx {
namespace {

constexpr qint64 kNearestBudget = 4'000'000;   // line comparisons spent looking for the nearest lines
constexpr int kShownLines = 8;

QByteArray stripCr(const QByteArray &l) { return l.endsWith('\r') ? l.left(l.size() - 1) : l; }

struct FileLines {
    QList<QByteArray> lines;   // without '\n', with any '\r'
    bool endsWithNewline = true;
    bool crlf = false;
};

FileLines splitFile(const QByteArray &bytes)
{
    FileLines f;
    if (bytes.isEmpty())
        return f;
    f.lines = bytes.split('\n');
    f.endsWithNewline = bytes.endsWith('\n');
    if (f.endsWithNewline)
        f.lines.removeLast();
    qsizetype crlf = 0;
    for (const QByteArray &l : f.lines)
        if (l.endsWith('\r'))
            ++crlf;
    f.crlf = crlf * 2 > f.lines.size();
    return f;
}

using Compare = std::function<bool(const QByteArray &, const QByteArray &)>;

QString quoted(const QList<QByteArray> &lines, qsizetype from, qsizetype count, qsizetype firstNumber)
{
    QStringList out;
    for (qsizetype i = from; i < from + count && i < lines.size(); ++i)
        out << QStringLiteral("%1| %2").arg(firstNumber + (i - from), 5).arg(QString::fromUtf8(stripCr(lines.at(i)).left(300)));
    return out.join(QLatin1Char('\n'));
}

// The position whose lines agree with `old` most often, searched within the comparison budget
// closest to `hint` first.
qsizetype nearest(const QList<QByteArray> &file, const QList<QByteArray> &old, qsizetype hint)
{
    if (old.isEmpty() || file.isEmpty())
        return 0;
    const qsizetype positions = file.size();
    const qsizetype span = std::max<qsizetype>(1, std::min<qsizetype>(positions, kNearestBudget / old.size()));
    const qsizetype from = std::clamp<qsizetype>(hint - span / 2, 0, std::max<qsizetype>(0, positions - span));
    qsizetype best = from, bestScore = -1;
    for (qsizetype p = from; p < from + span; ++p) {
        qsizetype score = 0;
        for (qsizetype i = 0; i < old.size() && p + i < file.size(); ++i)
            if (stripCr(file.at(p + i)).trimmed() == old.at(i).trimmed())
                ++score;
        if (score > bestScore) {
            bestScore = score;
            best = p;
        }
    }
    return best;
}

} // namespace

bool PatchApplier::apply(const FilePatch &patch, const QByteArray &before, Outcome &out, QString &error)
{
    const bool adding = patch.action == FilePatch::Action::Add;
    FileLines file = adding ? FileLines{} : splitFile(before);
    const QByteArray eol = file.crlf ? QByteArrayLiteral("\r") : QByteArray();
    out = Outcome{};

    const QList<Compare> passes{
        [](const QByteArray &a, const QByteArray &b) { return stripCr(a) == b; },
        [](const QByteArray &a, const QByteArray &b) {
            QByteArray x = stripCr(a), y = b;
            while (!x.isEmpty() && QChar::isSpace(x.back())) x.chop(1);
            while (!y.isEmpty() && QChar::isSpace(y.back())) y.chop(1);
            return x == y;
        },
        [](const QByteArray &a, const QByteArray &b) { return stripCr(a).trimmed() == b.trimmed(); }};

    struct Edit {
        qsizetype at, oldCount;
        bool reachesEnd;
        const PatchHunk *hunk;
    };
    QList<Edit> edits;
    qsizetype cursor = 0;
    qsizetype delta = 0;   // how far earlier hunks moved the file against the patch's line numbers
    for (int h = 0; h < patch.hunks.size(); ++h) {
        const PatchHunk &hunk = patch.hunks.at(h);
        QList<QByteArray> oldLines, newLines;
        for (const PatchLine &l : hunk.lines) {
            if (l.kind != '+')
                oldLines.append(l.text);
            if (l.kind != '-')
                newLines.append(l.text);
            out.added += l.kind == '+';
            out.removed += l.kind == '-';
        }
        const QString where = QStringLiteral("hunk %1 of %2 (patch line %3)").arg(h + 1).arg(patch.path).arg(hunk.header);
        if (adding) {
            if (oldLines.size() != 0) {
                error = QStringLiteral("%1: a new file's hunk must only add lines").arg(where);
                return false;
            }
            edits.append({0, 0, true, &hunk});
            continue;
        }
        qsizetype searchFrom = cursor;
        if (!hunk.anchor.isEmpty()) {
            qsizetype a = -1;
            for (const Compare &eq : passes) {
                for (qsizetype i = cursor; i < file.lines.size() && a < 0; ++i)
                    if (eq(file.lines.at(i), hunk.anchor))
                        a = i;
                if (a >= 0)
                    break;
            }
            // Models often repeat the first context line as the anchor: then the hunk may start at it.
            if (a >= 0)
                searchFrom = (!oldLines.isEmpty() && oldLines.first().trimmed() == hunk.anchor.trimmed()) ? a : a + 1;
        }
        const qsizetype last = file.lines.size() - oldLines.size();
        qsizetype found = -1;
        if (oldLines.isEmpty()) {
            found = hunk.oldStart > 0 ? std::clamp<qsizetype>(hunk.oldStart + delta, searchFrom, file.lines.size())
                                      : file.lines.size();
        } else {
            const qsizetype hint = hunk.oldStart > 0 ? hunk.oldStart - 1 + delta : searchFrom;
            for (const Compare &eq : passes) {
                qsizetype bestDistance = -1;
                for (qsizetype p = hunk.atEndOfFile ? last : searchFrom; p <= last; ++p) {
                    qsizetype i = 0;
                    while (i < oldLines.size() && eq(file.lines.at(p + i), oldLines.at(i)))
                        ++i;
                    if (i < oldLines.size())
                        continue;
                    const qsizetype distance = std::abs(p - hint);
                    if (bestDistance < 0 || distance < bestDistance) {
                        bestDistance = distance;
                        found = p;
                    }
                    if (p > hint)
                        break;   // later matches are only further away
                }
                if (found >= 0)
                    break;
            }
        }
        if (found < 0) {
            const qsizetype hint = hunk.oldStart > 0 ? hunk.oldStart - 1 + delta : searchFrom;
            const qsizetype near = nearest(file.lines, oldLines, hint);
            error = QStringLiteral("%1 does not apply: these lines were not found%2:\n%3\nNearest lines in the file "
                                   "(from line %4):\n%5")
                        .arg(where,
                             cursor > 0 ? QStringLiteral(" after the previous hunk") : QString(),
                             quoted(oldLines, 0, std::min<qsizetype>(oldLines.size(), kShownLines), 1))
                        .arg(near + 1)
                        .arg(quoted(file.lines, near, std::max<qsizetype>(kShownLines, std::min<qsizetype>(oldLines.size(), 20)), near + 1));
            return false;
        }
        if (hunk.oldStart > 0)
            delta = found - (hunk.oldStart - 1);
        const bool reachesEnd = found + oldLines.size() == file.lines.size();
        edits.append({found, oldLines.size(), reachesEnd, &hunk});
        cursor = found + oldLines.size();
    }

    // Build the result: context lines keep their original bytes, new lines get the file's line ending.
    QList<QByteArray> result;
    bool endsWithNewline = file.endsWithNewline || file.lines.isEmpty();
    qsizetype pos = 0;
    for (const Edit &e : edits) {
        for (; pos < e.at; ++pos)
            result.append(file.lines.at(pos));
        for (const PatchLine &l : e.hunk->lines) {
            if (l.kind == '+')
                result.append(l.text + eol);
            else if (l.kind == ' ' && !adding)
                result.append(file.lines.at(pos++));
            else if (l.kind == '-')
                ++pos;
        }
        if (e.reachesEnd && (e.hunk->oldNoNewline || e.hunk->newNoNewline || adding || file.lines.isEmpty()))
            endsWithNewline = !e.hunk->newNoNewline;
    }
    for (; pos < file.lines.size(); ++pos)
        result.append(file.lines.at(pos));
    if (patch.action == FilePatch::Action::Delete) {
        if (!patch.hunks.isEmpty() && !result.isEmpty()) {
            error = QStringLiteral("the deletion of %1 does not match the file: %2 line(s) would remain")
                        .arg(patch.path).arg(result.size());
            return false;
        }
        return true;
    }
    for (qsizetype i = 0; i < result.size(); ++i) {
        out.content += result.at(i);
        if (i + 1 < result.size() || endsWithNewline)
            out.content += '\n';
    }
    return true;
}

} // namespace chat2sbx
