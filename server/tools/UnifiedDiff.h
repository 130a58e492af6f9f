#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace chat2sbx {

// A short unified diff for an exact replacement: `matches` are the byte offsets in `before` where
// `oldText` was replaced by `newText` (ascending, not overlapping). Three lines of context, nearby
// changes merged into one hunk, capped at `maxLines` lines.
// The path a diff header names for `path` as a tool got it: relative to the workspace when it is inside
// it (so `git apply` in the repository takes the diff), otherwise unchanged.
QString diffHeaderPath(const QString &workspacePath, bool managedWorkspace, const QString &path);

QString replacementDiff(const QString &path, const QByteArray &before, const QList<qsizetype> &matches,
                        const QByteArray &oldText, const QByteArray &newText, int maxLines = 200);

} // namespace chat2sbx
