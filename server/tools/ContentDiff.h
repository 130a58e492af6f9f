#pragma once

#include <QByteArray>
#include <QString>

namespace chat2sbx {

// A unified diff from `before` to `after` (whole contents, e.g. a file and what `write` replaced it
// with): one hunk from the first to the last changed line with three lines of context, capped at
// `maxLines` lines. `created`: the file did not exist (the old side is /dev/null). Empty when equal.
QString contentDiff(const QString &path, const QByteArray &before, const QByteArray &after, bool created,
                    int maxLines = 200);

} // namespace chat2sbx
