#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// A short unified diff for an exact replacement of every (non-overlapping) `oldText` in `before`
// by `newText`. Three lines of context, nearby changes merged into one hunk, capped at `maxLines`
// lines. Linear in the size of `before`: matches are found as the diff is written and the search
// stops once the cap is reached, so a replacement with 200k matches costs no more than a short one.
QString replacementDiff(const QString &path, const QByteArray &before, const QByteArray &oldText,
                        const QByteArray &newText, int maxLines = 200);

} // namespace chat2sbx
