#!/usr/bin/env bash
# Builds the release packages (.deb and .tar.gz):
#   installers/build-package.sh [build-dir]          configure and build a release tree (default
#                                                    build/package), then package it
#   installers/build-package.sh --tree <build-dir>   package a release tree that is built already
#                                                    (the package test packages build/release, the
#                                                    tree whose binaries the release tests ran)
# The tree is the `release` preset's configuration (CMakePresets.json): no sanitizers, so the
# package needs no ASan runtime, prefix /usr, Debian's hardening flags. Prints the .deb's path as
# the last line.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
for tool in dpkg-shlibdeps file; do
  command -v "$tool" >/dev/null ||
    { echo "build-package: $tool not found: installers/deps.sh --package installs it (cpack computes the Depends with it)" >&2; exit 1; }
done

if [[ ${1:-} == --tree ]]; then
  build_dir=${2:?usage: build-package.sh --tree <build-dir>}
  cache=$build_dir/CMakeCache.txt
  [[ -f $cache ]] || { echo "build-package: $build_dir is not a configured build tree" >&2; exit 1; }
  if ! { grep -qE '^CMAKE_BUILD_TYPE:[A-Z]+=Release$' "$cache" && grep -qE '^CHAT2SBX_SANITIZE:[A-Z]+=OFF$' "$cache" &&
         grep -qE '^CMAKE_INSTALL_PREFIX:[A-Z]+=/usr$' "$cache"; }; then
    echo "build-package: $build_dir is not configured like the release preset (Release, no sanitizers, prefix /usr)" >&2
    exit 1
  fi
else
  build_dir=${1:-$source_dir/build/package}
  jobs=${CHAT2SBX_PACKAGE_JOBS:-$(nproc 2>/dev/null || echo 2)}
  (cd "$source_dir" && cmake --preset release -B "$build_dir" \
     -DCHAT2SBX_WERROR=OFF -DCHAT2SBX_BUILD_TESTS=OFF -DCHAT2SBX_BUILD_BENCH=OFF >/dev/null)
  cmake --build "$build_dir" -j "$jobs"
fi
(cd "$build_dir" && rm -f ./*.deb ./*.tar.gz && cpack -G "DEB;TGZ" >/dev/null)
ls "$build_dir"/*.deb
