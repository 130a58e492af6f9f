// `sbx --cloud ...` (reference/sbx-cloud.md): Docker's cloud sandboxes as a second store under
// $FAKE_SBX_STATE/cloud, separate from the local one ("A sandbox shown by `sbx ls` doesn't appear in
// `sbx --cloud ls`"). Sandboxes are addressed by their sbx_ id or their name; sizes, TTL with expiry
// and on-timeout, stop and resume, public port URLs, cp, diagnose, quota and "no plan" errors. See
// README.md, "Cloud sandboxes".
#pragma once

#include "Commands.h"

#include <QStringList>

namespace fakesbx {

// The arguments after `--cloud` (the verb first). `exec` may replace the process.
int cmdCloud(const Context &ctx, const QStringList &args);

} // namespace fakesbx
