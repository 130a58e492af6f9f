#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace chat2sbx {

// One line of a hunk: ' ' context, '-' removed, '+' added; text without the end of line.
struct PatchLine {
    char kind = ' ';
    QByteArray text;
};

struct PatchHunk {
    int oldStart = 0;            // 1-based line hint from "@@ -a,b +c,d @@"; 0 when the patch has none
    QByteArray anchor;           // envelope "@@ <line>": the hunk comes after a line equal to it
    bool atEndOfFile = false;    // envelope "*** End of File": the hunk ends at the last line
    bool oldNoNewline = false;   // "\ No newline at end of file" after the last old line
    bool newNoNewline = false;   // ... after the last new line
    QList<PatchLine> lines;
    int header = 0;              // 1-based line of the hunk in the patch text, for messages

    // A hunk with nothing read yet whose header is at `line`.
    static PatchHunk startingAt(int line)
    {
        PatchHunk hunk;
        hunk.header = line;
        return hunk;
    }
};

struct FilePatch {
    enum class Action { Update, Add, Delete };
    Action action = Action::Update;
    QString path;                // the file before (Update/Delete) or the new file (Add)
    QString moveTo;              // Update only: the new path (rename), empty when the path stays
    QList<PatchHunk> hunks;
};

// Parses a multi-file patch: either a unified diff as `git diff` or `diff -u` print it (modify, new
// and deleted files, /dev/null sides, renames, several hunks and files) or the
// "*** Begin Patch" envelope (Add/Update/Delete File, Move to). Returns false with a readable
// message naming the patch line on anything it does not understand.
class PatchParser {
public:
    static bool parse(const QByteArray &patch, QList<FilePatch> &out, QString &error);

private:
    static QString lineRef(int index);   // "patch line <index + 1>"
    static bool parseEnvelope(const QList<QByteArray> &lines, QList<FilePatch> &out, QString &error);
    static bool parseUnified(const QList<QByteArray> &lines, QList<FilePatch> &out, QString &error);   // PatchParserUnified.cpp
};

} // namespace chat2sbx
