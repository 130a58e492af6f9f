// The host proxy of a sandbox (sbx-contract.md, "Network policy and approvals"): exec'd commands
// get HTTP_PROXY/HTTPS_PROXY (and the lower-case names) pointing at it. A detached helper process
// (this binary, "__proxy") serves plain HTTP requests in absolute form and CONNECT tunnels; each
// request is decided by the policy store (deny wins), logged, and either relayed to its target or
// answered with `HTTP/1.1 403 Forbidden` and the policy's text body. It carries
// FAKE_SBX_SANDBOX=<runtime>, so `sbx stop` / `sbx rm` kill it, and exits once the sandbox is gone.
#pragma once

#include "Commands.h"

namespace fakesbx {

// The port of <runtime>'s proxy on 127.0.0.1, starting it when none is alive; 0 when it cannot
// be started. Call with the StateLock held.
int ensureProxy(const Context &ctx, const QString &runtime);

// Body of the hidden "__proxy <runtime>" command (listening socket on descriptor 3).
int runProxy(int argc, char **argv, const QStringList &args);

} // namespace fakesbx
