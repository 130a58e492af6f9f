// Clone mode (sbx-contract.md, behaviour 4): `create --clone` makes a private git clone of the
// commit checked out on the host (committed files only), adds the remote `sandbox-<name>` to the
// host repository (fetching into refs/sandboxes/<name>/) and `rm` removes that remote again.
#pragma once

#include <QString>

namespace fakesbx {

// Empty when <root> may be cloned: it must be the top of a git repository whose .git is a
// directory (a linked worktree's .git file is refused). Otherwise the error line.
QString cloneRefusal(const QString &root);

// git clone <root> <cloneDir>, then the host remote sandbox-<name> pointing at the clone.
bool cloneWorkspace(const QString &name, const QString &root, const QString &cloneDir, QString *error);

// Removes the host remote sandbox-<name> (no error when it is already gone).
void removeHostRemote(const QString &name, const QString &root);

} // namespace fakesbx
