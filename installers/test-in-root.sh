#!/usr/bin/env bash
# Run inside a distribution root (installers/distro-root.sh SUITE run -- ...): configures the release
# preset into BUILD_DIR with the tests and warnings as errors, builds it and runs the unit,
# integration, e2e and package labels (the package test installs the .deb in the root and purges it).
#   installers/test-in-root.sh BUILD_DIR [JOBS] [build|test|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:?usage: test-in-root.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc 2>/dev/null || echo 2)}
what=${3:-all}
[[ $what =~ ^(build|test|all)$ ]] || { echo "test-in-root: unknown step '$what' (build, test or all)" >&2; exit 2; }
# shellcheck source=/dev/null
. /etc/os-release
echo "test-in-root: $PRETTY_NAME, $(qtpaths6 --qt-version 2>/dev/null | sed 's/^/Qt /'), $(cmake --version | head -n1)"
if [[ $what != test ]]; then
  cmake --preset release -B "$build_dir" -DCHAT2SBX_BUILD_TESTS=ON -DCHAT2SBX_WERROR=ON -DCHAT2SBX_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build_dir" -j "$jobs"
fi
[[ $what == build ]] && exit 0
ctest --test-dir "$build_dir" -L '^(unit|integration|e2e|package)$' -j "$jobs" --output-on-failure --no-tests=error --timeout 600
