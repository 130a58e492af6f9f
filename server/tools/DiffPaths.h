#pragma once

#include <QString>

namespace chat2sbx {

// The path the `a/<path>` `b/<path>` headers of a diff name for `path` as a tool got it: relative to
// the workspace when it is inside it (so `git apply` in the repository takes the diff; also for
// absolute paths and ~/workspace/...), otherwise unchanged.
QString diffHeaderPath(const QString &workspacePath, bool managedWorkspace, const QString &path);

} // namespace chat2sbx
