// PatchParser's reading of a unified diff (`git diff`, `diff -u`); the envelope is in PatchParser.cpp.
#include "tools/PatchParser.h"

#include <QRegularExpression>

namespace chat2sbx {
namespace {

// "a/src/x.c\t2024-01-01 ..." -> "src/x.c" (the prefix only on the side that carries it).
QString unifiedDiffPath(QByteArray raw, char side)
{
    const qsizetype tab = raw.indexOf('\t');
    if (tab >= 0)
        raw.truncate(tab);
    raw = raw.trimmed();
    if (raw.size() > 2 && raw.startsWith('"') && raw.endsWith('"'))
        raw = raw.mid(1, raw.size() - 2);
    if (raw == "/dev/null")
        return QStringLiteral("/dev/null");
    if (raw.size() > 2 && raw.at(0) == side && raw.at(1) == '/')
        raw = raw.mid(2);
    return QString::fromUtf8(raw);
}

} // namespace

bool PatchParser::parseUnified(const QList<QByteArray> &lines, QList<FilePatch> &out, QString &error)
{
    static const QRegularExpression hunkHeader(QStringLiteral("^@@ -(\\d+)(?:,(\\d+))? \\+(\\d+)(?:,(\\d+))? @@"));
    struct Pending {
        bool open = false;
        bool added = false, deleted = false;
        QString oldPath, newPath;
        QList<PatchHunk> hunks;
        int line = 0;
    } cur;
    auto flush = [&]() -> bool {
        if (!cur.open)
            return true;
        FilePatch f;
        if (cur.added || cur.oldPath == QLatin1String("/dev/null")) {
            f.action = FilePatch::Action::Add;
            f.path = cur.newPath;
            if (cur.hunks.isEmpty())
                cur.hunks.append(PatchHunk::startingAt(cur.line));
        } else if (cur.deleted || cur.newPath == QLatin1String("/dev/null")) {
            f.action = FilePatch::Action::Delete;
            f.path = cur.oldPath;
        } else {
            f.path = cur.oldPath;
            if (cur.newPath != cur.oldPath)
                f.moveTo = cur.newPath;
            if (cur.hunks.isEmpty() && f.moveTo.isEmpty()) {
                error = QStringLiteral("the diff of %1 (%2) has no hunks").arg(f.path, lineRef(cur.line - 1));
                return false;
            }
        }
        if (f.path.isEmpty() || f.path == QLatin1String("/dev/null")) {
            error = QStringLiteral("%1: the diff names no file").arg(lineRef(cur.line - 1));
            return false;
        }
        f.hunks = cur.hunks;
        out.append(f);
        cur = Pending{};
        return true;
    };
    auto startFile = [&](int i) -> bool {
        if (!flush())
            return false;
        cur.open = true;
        cur.line = i + 1;
        return true;
    };

    for (int i = 0; i < lines.size(); ++i) {
        const QByteArray &l = lines.at(i);
        if (l.startsWith("diff --git ")) {
            if (!startFile(i))
                return false;
            const QByteArray rest = l.mid(11);
            const qsizetype b = rest.lastIndexOf(" b/");
            if (b > 0) {
                cur.oldPath = unifiedDiffPath(rest.left(b), 'a');
                cur.newPath = unifiedDiffPath(rest.mid(b + 1), 'b');
            }
            continue;
        }
        if (l.startsWith("--- ") && i + 1 < lines.size() && lines.at(i + 1).startsWith("+++ ")) {
            // Inside a "diff --git" block whose header lines came first, this is the same file.
            if (!cur.open || !cur.hunks.isEmpty())
                if (!startFile(i))
                    return false;
            cur.oldPath = unifiedDiffPath(l.mid(4), 'a');
            cur.newPath = unifiedDiffPath(lines.at(i + 1).mid(4), 'b');
            ++i;
            continue;
        }
        if (cur.open && cur.hunks.isEmpty()) {
            if (l.startsWith("new file mode")) { cur.added = true; continue; }
            if (l.startsWith("deleted file mode")) { cur.deleted = true; continue; }
            if (l.startsWith("rename from ")) { cur.oldPath = QString::fromUtf8(l.mid(12)); continue; }
            if (l.startsWith("rename to ")) { cur.newPath = QString::fromUtf8(l.mid(10)); continue; }
            if (l.startsWith("copy from ") || l.startsWith("copy to ")) {
                error = QStringLiteral("%1: copies are not supported; add the new file instead").arg(lineRef(i));
                return false;
            }
        }
        if (l.startsWith("GIT binary patch") || (l.startsWith("Binary files ") && l.endsWith(" differ"))) {
            error = QStringLiteral("%1: binary patches are not supported").arg(lineRef(i));
            return false;
        }
        if (!l.startsWith("@@"))
            continue;   // commit message, index/mode lines, trailers: not part of any file's change
        if (!cur.open) {
            error = QStringLiteral("%1: a hunk before any \"--- a/file\" / \"+++ b/file\" header").arg(lineRef(i));
            return false;
        }
        PatchHunk h;
        h.header = i + 1;
        qint64 oldLeft = -1, newLeft = -1;   // -1: counts unknown, read until the next header
        const QRegularExpressionMatch m = hunkHeader.match(QString::fromUtf8(l));
        if (m.hasMatch()) {
            h.oldStart = m.captured(1).toInt();
            oldLeft = m.captured(2).isEmpty() ? 1 : m.captured(2).toLongLong();
            newLeft = m.captured(4).isEmpty() ? 1 : m.captured(4).toLongLong();
        }
        char last = 0;
        int j = i + 1;
        for (; j < lines.size(); ++j) {
            const QByteArray &hl = lines.at(j);
            if (hl.startsWith('\\')) {
                if (last == '-' || last == ' ')
                    h.oldNoNewline = true;
                if (last == '+' || last == ' ')
                    h.newNoNewline = true;
                continue;
            }
            if (oldLeft == 0 && newLeft == 0)
                break;
            if (hl.startsWith("diff --git ") || hl.startsWith("@@"))
                break;
            const char kind = hl.isEmpty() ? ' ' : hl.at(0);
            if (kind != ' ' && kind != '-' && kind != '+')
                break;
            if (oldLeft >= 0 && ((kind != '+' && oldLeft == 0) || (kind != '-' && newLeft == 0)))
                break;   // counts exhausted on one side: this line belongs to what follows
            h.lines.append(PatchLine{kind, hl.isEmpty() ? QByteArray() : hl.mid(1)});
            last = kind;
            if (oldLeft >= 0) {
                if (kind != '+')
                    --oldLeft;
                if (kind != '-')
                    --newLeft;
            }
        }
        cur.hunks.append(h);
        i = j - 1;
    }
    if (!flush())
        return false;
    if (out.isEmpty()) {
        error = QStringLiteral("no file changes found: expected a unified diff (--- a/file, +++ b/file, @@ hunks) or a "
                               "\"*** Begin Patch\" envelope");
        return false;
    }
    return true;
}

} // namespace chat2sbx
