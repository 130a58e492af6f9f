#!/usr/bin/env bash
# The two commands of the README:
#   installers/bootstrap.sh serve   install what is missing, build (release), start `chat2sbx serve`
#                                   local-only on 127.0.0.1:18788
#   installers/bootstrap.sh test    install what is missing, build (dev: Debug, -Werror, ASan+UBSan),
#                                   run every test with ctest; then build the release configuration
#                                   (what the .deb ships) and run its unit, integration and e2e tests
#                                   and the package test, which packages that very tree; then (as
#                                   root; CHAT2SBX_DEBIAN13=0 skips it) the same release build and
#                                   tests in a Debian 13 root (Qt 6.8), and each .deb refused on the
#                                   other system
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
      # The registry sometimes resets a connection (ECONNRESET): retry a few times, then give up.
      for attempt in 1 2 3 4; do
        (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error) && break
        if (( attempt == 4 )); then
          echo "bootstrap: npm ci failed $attempt times" >&2
          exit 1
        fi
        echo "bootstrap: npm ci failed (attempt $attempt), retrying in $((attempt * 10)) s" >&2
        sleep $((attempt * 10))
      done
    fi
    # Both runs always happen, each prints its ctest summary; any failure fails the script. Each
    # phase prints how long it took (the README quotes them).
    status=0
    phase_start=0   # SECONDS counts from the start of this script
    phase() { echo "bootstrap: $1 took $((SECONDS - phase_start)) s"; phase_start=$SECONDS; }
    phase "installing what was missing"
    cmake --preset dev >/dev/null
    cmake --build --preset dev -j "$jobs"
    phase "the dev build"
    # Qt 6.8 (Debian 13): the same tree built and tested in a Debian 13 root that
    # installers/distro-root.sh makes with debootstrap (once per machine) and keeps under
    # /var/cache/chat2sbx. The root is made or updated in the background while the dev tests run
    # (debootstrap and apt wait on the network, not the CPU); the tree is built and tested there at
    # the end, after the host's tests, so no test here runs beside a compiler. Needs root or
    # passwordless sudo; CHAT2SBX_DEBIAN13=0 skips it.
    debian13_pid=
    asroot=()
    if [[ ${CHAT2SBX_DEBIAN13:-1} == 0 ]]; then
      echo "bootstrap: Debian 13 (Qt 6.8) phase skipped (CHAT2SBX_DEBIAN13=0)"
    elif [[ $(id -u) -eq 0 ]] || sudo -n true 2>/dev/null; then
      [[ $(id -u) -eq 0 ]] || asroot=(sudo -n)
      echo "bootstrap: Debian 13 (Qt 6.8) root made or updated in the background (log: build/debian13-root.log)"
      mkdir -p build
      "${asroot[@]}" installers/distro-root.sh trixie prepare --test >build/debian13-root.log 2>&1 &
      debian13_pid=$!
    else
      echo "bootstrap: the Debian 13 (Qt 6.8) phase needs root or passwordless sudo (debootstrap, bwrap): skipped" >&2
    fi
    echo "bootstrap: dev build (Debug, ASan+UBSan): every test but the package one"
    ctest --preset dev -j "$jobs" || status=1
    phase "the dev tests"
    # The release build is what users install: its optimiser exposes bugs (e.g. a dangling
    # reference) the Debug build hides. Configured as the .deb is, and packaged by its package test.
    cmake --preset release -DCHAT2SBX_BUILD_TESTS=ON >/dev/null
    cmake --build --preset release -j "$jobs"
    phase "the release build"
    echo "bootstrap: release build: unit, integration and e2e tests, then the .deb made of it"
    ctest --preset release -j "$jobs" || status=1
    phase "the release tests"
    if [[ -n $debian13_pid ]]; then
      debian13_ok=1
      wait "$debian13_pid" || debian13_ok=0
      tail -n 5 build/debian13-root.log
      phase "waiting for the Debian 13 root"
      if ((debian13_ok)) &&
         "${asroot[@]}" installers/distro-root.sh trixie run -- installers/test-in-root.sh build/debian13 "$jobs" build; then
        phase "the Debian 13 build (Qt 6.8, warnings as errors)"
        echo "bootstrap: Debian 13 (Qt 6.8) root: unit, integration, e2e and package tests"
        "${asroot[@]}" installers/distro-root.sh trixie run -- installers/test-in-root.sh build/debian13 "$jobs" test || status=1
        phase "the Debian 13 tests"
        # Each package is refused where its Qt is not: this machine's in the Debian 13 root, and the
        # Debian 13 one here.
        # shellcheck disable=SC2012  # the packages' own names: plain characters, and ls's error is wanted silent
        host_deb=$(ls build/release/chat2sbx_*.deb 2>/dev/null | head -n 1)
        # shellcheck disable=SC2012  # as above
        root_deb=$(ls build/debian13/chat2sbx_*.deb 2>/dev/null | head -n 1)
        if [[ -n $host_deb && -n $root_deb ]]; then
          "${asroot[@]}" installers/distro-root.sh trixie run -- installers/check-refused.sh "$host_deb" || status=1
          installers/check-refused.sh "$root_deb" || status=1
        else
          echo "bootstrap: a package is missing (${host_deb:-no host .deb}, ${root_deb:-no Debian 13 .deb})" >&2
          status=1
        fi
      else
        echo "bootstrap: the Debian 13 root could not be made (build/debian13-root.log above) or the tree did not build there" >&2
        status=1
      fi
    fi
    echo "bootstrap: $SECONDS s in all"
    exit "$status"
    ;;
  *)
    echo "usage: installers/bootstrap.sh serve|test" >&2
    exit 2
    ;;
esac
