#include "tools/PatchParser.h"

namespace chat2sbx {
namespace {

QByteArray chompCr(QByteArray line)
{
    if (line.endsWith('\r'))
        line.chop(1);
    return line;
}

bool isEnvelopeMarker(const QByteArray &l) { return l.startsWith("*** "); }

} // namespace

QString PatchParser::lineRef(int index)
{
    return QStringLiteral("patch line %1").arg(index + 1);
}

bool PatchParser::parse(const QByteArray &patch, QList<FilePatch> &out, QString &error)
{
    QList<QByteArray> lines = patch.split('\n');
    if (patch.endsWith('\n'))
        lines.removeLast();
    for (QByteArray &l : lines)
        l = chompCr(l);
    out.clear();
    for (const QByteArray &l : lines) {
        if (l.trimmed().isEmpty())
            continue;
        if (l.trimmed() == "*** Begin Patch")
            return parseEnvelope(lines, out, error);
        break;
    }
    return parseUnified(lines, out, error);
}

bool PatchParser::parseEnvelope(const QList<QByteArray> &lines, QList<FilePatch> &out, QString &error)
{
    int i = 0;
    while (lines.at(i).trimmed() != "*** Begin Patch")
        ++i;
    ++i;
    FilePatch *file = nullptr;
    PatchHunk *hunk = nullptr;
    bool ended = false;
    for (; i < lines.size(); ++i) {
        const QByteArray &l = lines.at(i);
        if (l.trimmed() == "*** End Patch") {
            ended = true;
            break;
        }
        if (l.startsWith("*** Add File: ") || l.startsWith("*** Delete File: ") || l.startsWith("*** Update File: ")) {
            FilePatch f;
            const qsizetype colon = l.indexOf(": ");
            f.path = QString::fromUtf8(l.mid(colon + 2).trimmed());
            f.action = l.startsWith("*** Add") ? FilePatch::Action::Add
                       : l.startsWith("*** Delete") ? FilePatch::Action::Delete
                                                    : FilePatch::Action::Update;
            if (f.path.isEmpty()) {
                error = QStringLiteral("%1: the file name is missing").arg(lineRef(i));
                return false;
            }
            if (f.action == FilePatch::Action::Add)
                f.hunks.append(PatchHunk::startingAt(i + 1));
            out.append(f);
            file = &out.last();
            hunk = file->action == FilePatch::Action::Add ? &file->hunks.last() : nullptr;
            continue;
        }
        if (!file) {
            if (l.trimmed().isEmpty())
                continue;
            error = QStringLiteral("%1: expected \"*** Add File:\", \"*** Update File:\" or \"*** Delete File:\"").arg(lineRef(i));
            return false;
        }
        if (l.startsWith("*** Move to: ")) {
            if (file->action != FilePatch::Action::Update || !file->hunks.isEmpty()) {
                error = QStringLiteral("%1: \"*** Move to:\" must directly follow \"*** Update File:\"").arg(lineRef(i));
                return false;
            }
            file->moveTo = QString::fromUtf8(l.mid(13).trimmed());
            continue;
        }
        if (l.trimmed() == "*** End of File") {
            if (!hunk || file->action != FilePatch::Action::Update) {
                error = QStringLiteral("%1: \"*** End of File\" outside a hunk").arg(lineRef(i));
                return false;
            }
            hunk->atEndOfFile = true;
            continue;
        }
        if (isEnvelopeMarker(l)) {
            error = QStringLiteral("%1: unknown patch marker \"%2\"").arg(lineRef(i), QString::fromUtf8(l.left(60)));
            return false;
        }
        switch (file->action) {
        case FilePatch::Action::Add:
            if (!l.startsWith('+')) {
                error = QStringLiteral("%1: every line of an added file must start with '+'").arg(lineRef(i));
                return false;
            }
            hunk->lines.append(PatchLine{'+', l.mid(1)});
            break;
        case FilePatch::Action::Delete:
            if (!l.trimmed().isEmpty()) {
                error = QStringLiteral("%1: \"*** Delete File:\" takes no content").arg(lineRef(i));
                return false;
            }
            break;
        case FilePatch::Action::Update:
            if (l.startsWith("@@")) {
                PatchHunk h;
                h.anchor = l.mid(2).trimmed();
                h.header = i + 1;
                file->hunks.append(h);
                hunk = &file->hunks.last();
                break;
            }
            if (!hunk) {   // the first hunk may omit its "@@" line
                file->hunks.append(PatchHunk::startingAt(i + 1));
                hunk = &file->hunks.last();
            }
            if (l.isEmpty())
                hunk->lines.append(PatchLine{' ', {}});
            else if (l.at(0) == ' ' || l.at(0) == '-' || l.at(0) == '+')
                hunk->lines.append(PatchLine{l.at(0), l.mid(1)});
            else {
                error = QStringLiteral("%1: a hunk line must start with ' ', '-' or '+'").arg(lineRef(i));
                return false;
            }
            break;
        }
    }
    if (!ended) {
        error = QStringLiteral("the patch has no \"*** End Patch\" line");
        return false;
    }
    if (out.isEmpty()) {
        error = QStringLiteral("the patch changes no file");
        return false;
    }
    for (const FilePatch &f : out)
        if (f.action == FilePatch::Action::Update && f.hunks.isEmpty() && f.moveTo.isEmpty()) {
            error = QStringLiteral("\"*** Update File: %1\" has no hunks").arg(f.path);
            return false;
        }
    return true;
}

} // namespace chat2sbx
