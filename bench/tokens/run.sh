#!/usr/bin/env bash
# Token benchmark (bench/README.md "Token economy"): runs tokens.mjs against the chat2sbx of a build tree.
#   bench/tokens/run.sh [BUILD_DIR]       default build/dev; needs app/chat2sbx and fakes/sbx/sbx in it
#   FAKE_SBX=/path/to/sbx bench/tokens/run.sh /other/build   another tree's binary with this fake sbx
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="$(cd "${1:-$root/build/dev}" && pwd)"
export CHAT2SBX_BINARY="$build/app/chat2sbx"
export CHAT2SBX_FAKE_SBX="${FAKE_SBX:-$build/fakes/sbx/sbx}"
export CHAT2SBX_VERSION="$(sed -n 's/^project(chat2sbx VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
[ -x "$CHAT2SBX_BINARY" ] || { echo "no $CHAT2SBX_BINARY: build it first" >&2; exit 1; }
[ -x "$CHAT2SBX_FAKE_SBX" ] || { echo "no fake sbx at $CHAT2SBX_FAKE_SBX" >&2; exit 1; }
[ -d "$here/node_modules" ] || (cd "$here" && npm ci --no-audit --no-fund)
exec node "$here/tokens.mjs" --table
