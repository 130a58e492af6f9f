#!/usr/bin/env bash
# Builds the release packages (.deb and .tar.gz) from a clean release tree:
#   installers/build-package.sh [build-dir]      default build/package
# Release build (no sanitizers, so the package needs no ASan runtime), prefix /usr, Debian's
# hardening flags, no tests or benchmarks. Incremental when build-dir already exists.
# Prints the path of the .deb as the last line.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$source_dir/build/package}
command -v dpkg-shlibdeps >/dev/null ||
  { echo "build-package: dpkg-shlibdeps not found (apt install dpkg-dev) - it computes the Depends" >&2; exit 1; }
jobs=${CHAT2SBX_PACKAGE_JOBS:-$(nproc 2>/dev/null || echo 2)}

# The compiler and linker hardening dpkg-buildflags asks for (hardening=+all), without -g:
# the package is stripped anyway.
cxxflags="-fstack-protector-strong -fstack-clash-protection -fcf-protection -Wformat -Werror=format-security -D_FORTIFY_SOURCE=2"
ldflags="-Wl,-z,relro -Wl,-z,now -Wl,--as-needed"

cmake -S "$source_dir" -B "$build_dir" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/usr \
  -DCMAKE_CXX_FLAGS="$cxxflags" \
  -DCMAKE_EXE_LINKER_FLAGS="$ldflags" \
  -DCHAT2SBX_WERROR=OFF -DCHAT2SBX_SANITIZE=OFF \
  -DCHAT2SBX_BUILD_TESTS=OFF -DCHAT2SBX_BUILD_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j "$jobs"
(cd "$build_dir" && rm -f ./*.deb ./*.tar.gz && cpack -G "DEB;TGZ" >/dev/null)
ls "$build_dir"/*.deb
