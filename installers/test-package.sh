#!/usr/bin/env bash
# The package test (ctest label "package"):
#   installers/test-package.sh <package-build-dir> [fake-sbx]          builds a release tree there
#   installers/test-package.sh --tree <release-tree> [fake-sbx]        packages a built release tree
# Makes the .deb (installers/build-package.sh): in the release preset's tree, ctest passes --tree,
# so the package holds the very binaries the release tests ran. Then checks it with lintian and
# dpkg-deb, unpacks it with `dpkg -x` into a temporary root, validates the desktop entries and the
# systemd unit, runs the unpacked `chat2sbx --version` and `chat2sbx serve` (fake sbx, temporary
# HOME, free port, no tunnel) for an MCP round trip, and stops it with SIGTERM. With CI=true it
# also installs the package with `dpkg -i`, runs /usr/bin/chat2sbx and purges it again.
set -euo pipefail
source_dir=$(cd "$(dirname "$0")/.." && pwd)
usage="usage: test-package.sh <package-build-dir>|--tree <release-tree> [fake-sbx]"
package_args=()
if [[ ${1:-} == --tree ]]; then
  package_args=(--tree)
  shift
fi
build_dir=${1:?$usage}
package_args+=("$build_dir")
fake_sbx=${2:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/chat2sbx-package.XXXXXX")
server_pid=
cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2>/dev/null; then kill -KILL "$server_pid" || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

step() { printf '== %s\n' "$*"; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}
seconds() { echo $((SECONDS - $1))s; }

missing=()
for tool in cmake ninja cpack dpkg-deb dpkg-shlibdeps lintian desktop-file-validate curl jq ldd; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
((${#missing[@]} == 0)) || fail "missing tools: ${missing[*]} (run installers/deps.sh --test)"

version=$(sed -n 's/^project(chat2sbx VERSION \([0-9.]*\).*/\1/p' "$source_dir/CMakeLists.txt")
[[ -n $version ]] || fail "cannot read the project version from CMakeLists.txt"

# ---------------------------------------------------------------------------------------------
step "make the .deb (release tree $build_dir)"
t0=$SECONDS
deb=$("$source_dir/installers/build-package.sh" "${package_args[@]}" | tail -n 1)
[[ -f $deb ]] || fail "no .deb produced"
arch=$(dpkg --print-architecture)
# The package version names the Qt minor release it was built with (README: "What the .deb names mean").
qt_minor=$(qtpaths6 --qt-version 2>/dev/null | cut -d. -f1,2)
[[ -n $qt_minor ]] || fail "qtpaths6 --qt-version printed nothing (qt6-base-dev-tools)"
deb_version="$version+qt$qt_minor"
[[ $(basename "$deb") == "chat2sbx_${deb_version}_${arch}.deb" ]] ||
  fail "unexpected file name $(basename "$deb"), expected chat2sbx_${deb_version}_${arch}.deb"
tgz=$(ls "$build_dir"/chat2sbx-"$version"-Linux-*.tar.gz)
tar -tzf "$tgz" | grep -q '/bin/chat2sbx$' || fail "$tgz has no bin/chat2sbx"
echo "built $deb in $(seconds "$t0")"

step "dpkg-deb -I"
dpkg-deb -I "$deb"
field() { dpkg-deb -f "$deb" "$1"; }
[[ $(field Package) == chat2sbx ]] || fail "Package is '$(field Package)'"
[[ $(field Version) == "$deb_version" ]] || fail "Version is '$(field Version)', expected $deb_version"
depends=$(field Depends)
# Debian 13 renamed some libraries for the 64-bit time_t transition (libqt6core6t64).
for dep in libqt6core6 libqt6network6 libqt6httpserver6 libqt6sql6 libqt6widgets6 libqt6sql6-sqlite libqt6svg6 qt6-image-formats-plugins; do
  [[ ",$depends," =~ [,\ ]${dep}(t64)?[,\ ] ]] || fail "Depends lacks $dep: $depends"
done
[[ $depends != *asan* && $depends != *ubsan* ]] || fail "Depends names a sanitizer runtime: $depends"
# QtHttpServer's ABI holds within one minor release only: the package must refuse any other.
[[ $depends == *"libqt6httpserver6 (>= $qt_minor), libqt6httpserver6 (<< "* ]] ||
  fail "Depends does not pin QtHttpServer's minor release $qt_minor: $depends"

step "lintian (fails on errors)"
t0=$SECONDS
lintian_rc=0
lintian --fail-on error --info --display-info "$deb" >"$tmp/lintian.log" 2>&1 || lintian_rc=$?
grep -v '^running with root privileges' "$tmp/lintian.log" || true
tags() { grep -c "^$1: " "$tmp/lintian.log" || true; }
echo "lintian: $(tags E) errors, $(tags W) warnings, $(tags I) info, $(tags P) pedantic"
[[ $lintian_rc -eq 0 && $(tags E) -eq 0 ]] || fail "lintian reported errors (exit $lintian_rc)"
echo "lintian done in $(seconds "$t0")"

# ---------------------------------------------------------------------------------------------
step "dpkg -x into a temporary root"
root=$tmp/root
dpkg -x "$deb" "$root"
for f in usr/bin/chat2sbx \
         usr/share/applications/chat2sbx.desktop \
         usr/share/icons/hicolor/scalable/apps/chat2sbx.svg \
         usr/share/icons/hicolor/scalable/status/chat2sbx-tray-ready.svg \
         usr/share/icons/hicolor/scalable/status/chat2sbx-tray-error-attention.svg \
         usr/lib/systemd/user/chat2sbx.service \
         usr/share/doc/chat2sbx/copyright \
         usr/share/doc/chat2sbx/changelog.gz \
         usr/share/doc/chat2sbx/examples/chat2sbx-autostart.desktop \
         usr/share/doc/chat2sbx/examples/AGENTS.md.example \
         usr/share/man/man1/chat2sbx.1.gz; do
  [[ -e $root/$f ]] || fail "package lacks /$f"
done
gzip -dc "$root/usr/share/doc/chat2sbx/changelog.gz" | head -n 1 | grep -qF "chat2sbx ($deb_version) " ||
  fail "the packaged changelog's newest entry is not $deb_version (installers/debian/changelog must name $version)"
[[ -x $root/usr/bin/chat2sbx ]] || fail "/usr/bin/chat2sbx is not executable"
if ldd "$root/usr/bin/chat2sbx" | grep -E 'not found|libasan|libubsan'; then
  fail "the packaged binary needs libraries the system does not provide"
fi

step "desktop-file-validate"
desktop-file-validate "$root/usr/share/applications/chat2sbx.desktop"
desktop-file-validate "$root/usr/share/doc/chat2sbx/examples/chat2sbx-autostart.desktop"
grep -qx 'Exec=chat2sbx' "$root/usr/share/applications/chat2sbx.desktop" || fail "desktop entry does not run chat2sbx"

step "systemd-analyze verify (user unit)"
unit=$root/usr/lib/systemd/user/chat2sbx.service
grep -qx 'ExecStart=/usr/bin/chat2sbx serve' "$unit" || fail "unit does not run /usr/bin/chat2sbx serve"
grep -qx 'Restart=on-failure' "$unit" || fail "unit does not restart on failure"
if command -v systemd-analyze >/dev/null; then
  # Point the unit at the unpacked binary; the man page is not installed in this root.
  sed -e "s|^ExecStart=/usr/bin/chat2sbx|ExecStart=$root/usr/bin/chat2sbx|" -e '/^Documentation=/d' \
    "$unit" >"$tmp/chat2sbx.service"
  verify=$(systemd-analyze verify "$tmp/chat2sbx.service" 2>&1) || fail "systemd-analyze verify: $verify"
  [[ -z $verify ]] || fail "systemd-analyze verify complained: $verify"
else
  echo "systemd-analyze not installed: skipped"
fi

# ---------------------------------------------------------------------------------------------
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
run_env() {
  exec env -i PATH=/usr/bin:/bin HOME="$tmp/home" LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen \
    CHAT2SBX_ENABLE_TUNNEL=0 CHAT2SBX_SBX="${fake_sbx:-sbx}" FAKE_SBX_STATE="$tmp/sbx-state" \
    CHAT2SBX_SBX_ENV='FAKE_SBX_*' "$@"
}
mkdir -p "$tmp/home" "$tmp/sbx-state"

# --version, status (no server), then serve on a free port, an MCP round trip and SIGTERM.
start_and_check() {   # start_and_check BINARY
  local bin=$1 out
  out=$(run_env "$bin" --version)
  [[ $out == "chat2sbx $version" ]] || fail "$bin --version printed '$out', expected 'chat2sbx $version'"
  echo "$out"
  # Exit 1 (not healthy: no server running) is expected; a crash or a missing symbol is not.
  local rc=0
  out=$(run_env "$bin" status 2>&1) || rc=$?
  if ((rc > 1)) || ! grep -q '^server:' <<<"$out"; then echo "$out" >&2; fail "$bin status exited $rc"; fi
  echo "status (exit $rc): $(grep '^server:' <<<"$out")"

  local log=$tmp/serve.log started='' port attempt
  for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 30000))
    port_in_use "$port" && continue
    run_env CHAT2SBX_PORT="$port" "$bin" serve >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 150); do
      if curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null; then
        started=1
        break
      fi
      kill -0 "$server_pid" 2>/dev/null || break
      sleep 0.2
    done
    [[ -n $started ]] && break
    kill -KILL "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    grep -qi 'address\|in use' "$log" || { cat "$log" >&2; fail "serve did not become healthy (attempt $attempt)"; }
  done
  [[ -n $started ]] || { cat "$log" >&2; fail "serve did not become healthy on any port"; }
  echo "healthy on port $port: $(curl -fsS "http://127.0.0.1:$port/healthz")"
  "$source_dir/installers/mcp-roundtrip.sh" "http://127.0.0.1:$port/mcp" sandbox_create ||
    { cat "$log" >&2; fail "MCP round trip failed"; }
  kill -TERM "$server_pid"
  rc=0
  wait "$server_pid" || rc=$?
  server_pid=
  [[ $rc -eq 0 ]] || { cat "$log" >&2; fail "serve exited with $rc after SIGTERM"; }
  echo "serve exited 0 after SIGTERM"
}

step "unpacked chat2sbx: --version, status, serve + MCP round trip"
start_and_check "$root/usr/bin/chat2sbx"

# ---------------------------------------------------------------------------------------------
if [[ ${CI:-} == true ]]; then
  # shellcheck source=/dev/null
  . /etc/os-release
  step "CI: apt-get install the .deb on $PRETTY_NAME, run it, purge it"
  sudo=()
  [[ $(id -u) -eq 0 ]] || sudo=(sudo -n)
  # As a user installs it: apt resolves the dependencies (and refuses a package built for another Qt).
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$deb" >"$tmp/apt.log" 2>&1 ||
    { cat "$tmp/apt.log" >&2; fail "apt-get install $(basename "$deb") failed on $PRETTY_NAME"; }
  [[ $(dpkg-query -W -f='${Status} ${Version}' chat2sbx) == "install ok installed $deb_version" ]] ||
    fail "apt-get did not install chat2sbx $deb_version"
  start_and_check /usr/bin/chat2sbx
  "${sudo[@]}" dpkg -r chat2sbx
  [[ ! -e /usr/bin/chat2sbx ]] || fail "/usr/bin/chat2sbx still exists after dpkg -r"
  "${sudo[@]}" dpkg --purge chat2sbx
  if dpkg-query -W -f='${Status}' chat2sbx 2>/dev/null | grep -q installed; then
    fail "chat2sbx still known to dpkg after purge"
  fi
  echo "installed with apt-get on $PRETTY_NAME, started, purged"
else
  echo "(not CI: installing with apt-get skipped; set CI=true to run it)"
fi

echo "PASS"
