#!/usr/bin/env bash
# The tray's figures (bench/tray.py) on a desktop of its own: builds chat2sbx, the fake sbx and
# chat2sbx-bench-tray in the release tree, then runs bench/tray.py in tests/desktop/desktop-session.sh.
#   bench/tray.sh            Env: BUILD_DIR (default build/release), JOBS (default 2), SKIP_BUILD=1
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
top="$(dirname "$here")"
build="${BUILD_DIR:-$top/build/release}"
if [[ "${SKIP_BUILD:-0}" != 1 ]]; then
  cmake --build "$build" -j"${JOBS:-2}" --target chat2sbx fake_sbx chat2sbx-bench-tray
fi
mkdir -p "$here/results"
out="$here/results/tray-$(date -u +%Y-%m-%dT%H%MZ).json"
echo "commit: $(git -C "$top" rev-parse --short HEAD)$(git -C "$top" diff --quiet || echo ' (with changes)'); load: $(uptime)"
"$top/tests/desktop/desktop-session.sh" python3 "$here/tray.py" "$build" "$out"
echo "results: $out"
