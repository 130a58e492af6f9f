#!/usr/bin/env bash
# The two commands of the README:
#   installers/bootstrap.sh serve   install what is missing, build (release), start `chat2sbx serve`
#                                   local-only on 127.0.0.1:18788
#   installers/bootstrap.sh test    install what is missing, build (dev: Debug, -Werror, ASan+UBSan),
#                                   run every test with ctest
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-}
jobs=$(nproc 2>/dev/null || echo 2)

case "$mode" in
  serve)
    installers/deps.sh
    cmake --preset release -DCHAT2SBX_BUILD_TESTS=OFF -DCHAT2SBX_BUILD_BENCH=OFF >/dev/null
    cmake --build --preset release -j "$jobs"
    echo "bootstrap: starting chat2sbx serve (local-only) on http://127.0.0.1:${CHAT2SBX_PORT:-18788}/mcp"
    CHAT2SBX_ENABLE_TUNNEL=0 exec build/release/app/chat2sbx serve
    ;;
  test)
    installers/deps.sh --test
    if [[ -f tests/e2e/package-lock.json ]]; then
      (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
    fi
    cmake --preset dev >/dev/null
    cmake --build --preset dev -j "$jobs"
    ctest --preset dev -j "$jobs"
    ;;
  *)
    echo "usage: installers/bootstrap.sh serve|test" >&2
    exit 2
    ;;
esac
