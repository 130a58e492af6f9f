#pragma once

#include <QString>

namespace chat2sbx {

struct SandboxView;

// The short name a person reads for a sandbox, where the full id (sbx_ + 24 hex digits) is too long
// to scan: its workspace's folder name ("scratch" for a managed workspace) and the first four hex
// digits of its id, "myrepo-3f9c". Shown by the tray, `chat2sbx sandbox list`, the activity log and
// notifications; tools and --json keep the full id beside it. Not unique by construction: two
// sandboxes of one folder differ in the suffix, and the full id is always on hover and in --json.
QString sandboxShortName(const QString &sandboxId, const QString &workspaceFolderName, bool managedWorkspace);
QString sandboxShortName(const SandboxView &view);

} // namespace chat2sbx
