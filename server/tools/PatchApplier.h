#pragma once

#include "tools/PatchParser.h"

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// Applies the hunks of one FilePatch to a file's bytes. Hunks are located by their context and
// removed lines, in order, the nearest match to the line number the hunk names (so shifted line
// numbers do not matter); exact matches first, then ignoring trailing and finally surrounding
// whitespace. CRLF files stay CRLF. On failure the message names the hunk, what it expected and
// the nearest lines of the file.
class PatchApplier {
public:
    struct Outcome {
        QByteArray content;
        int added = 0;
        int removed = 0;
    };

    // `before` is ignored for Action::Add. For Action::Delete the hunks (if any) must remove the
    // whole file.
    static bool apply(const FilePatch &patch, const QByteArray &before, Outcome &out, QString &error);
};

} // namespace chat2sbx
