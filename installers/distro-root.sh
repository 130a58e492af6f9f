#!/usr/bin/env bash
# A Debian root made with debootstrap from Debian's archive, cached between runs on this machine, to
# build, test and install chat2sbx on another Debian release than the host's.
#   installers/distro-root.sh SUITE prepare [--test]   make (or reuse) the root and install in it what
#                                                     installers/deps.sh names (with --test: the tests' too)
#   installers/distro-root.sh SUITE path               print the root's directory
#   installers/distro-root.sh SUITE run [--bind DIR]... -- CMD...
#                                                     run CMD inside the root as root, the source tree
#                                                     bound at the same path (plus each --bind DIR)
# SUITE is a Debian codename (trixie = Debian 13, bookworm = Debian 12). Needs root.
# The root lives in /var/cache/chat2sbx/roots/SUITE-KEY, KEY a hash of the suite, the mirror and this
# script's debootstrap options; deps.sh runs inside on every prepare and installs only what is
# missing, so a package added to deps.sh is added to the cached root instead of remaking it.
# Commands run through bwrap: a mount namespace of their own (/proc, /dev, /tmp, the binds) that the
# kernel tears down when the command ends, however it ends, so no mount outlives it. pivot_root
# (not chroot) keeps the fake sbx's own bwrap working inside.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-}
action=${2:-}
shift 2 || true

die() { echo "distro-root: $*" >&2; exit 1; }
[[ "$suite" =~ ^[a-z]+$ ]] || die "usage: distro-root.sh SUITE prepare [--test] | path | run [--bind DIR]... -- CMD..."
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, and bwrap keeping the capabilities apt needs)"

# The mirror this machine's apt already uses for Debian (the one archive every machine here reaches).
mirror=${CHAT2SBX_DEBIAN_MIRROR:-}
if [[ -z "$mirror" ]]; then
  mirror=$(grep -hoE '(URIs:|^deb)[[:space:]]+https?://[^[:space:]]+/debian/?([[:space:]]|$)' \
             /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
           | head -n1 | awk '{print $2}') || true
  mirror=${mirror:-http://deb.debian.org/debian}
fi
variant=minbase
include=ca-certificates,apt-utils   # certificates: npm's registry is https
cache=${CHAT2SBX_ROOT_CACHE:-/var/cache/chat2sbx/roots}
key=$(printf '%s\n' "$suite" "$mirror" "$variant" "$include" | sha256sum | cut -c1-12)
root="$cache/$suite-$key"

enter() {   # enter ROOT [--bind DIR]... -- CMD...
  local r=$1; shift
  local binds=(--bind "$here" "$here")
  while (($#)) && [[ "$1" != "--" ]]; do
    [[ "$1" == "--bind" && -n "${2:-}" ]] || die "run: expected --bind DIR or --"
    binds+=(--bind "$2" "$2"); shift 2
  done
  [[ "${1:-}" == "--" ]] || die "run: missing -- before the command"
  shift
  (($#)) || die "run: no command"
  # resolv.conf: apt and npm resolve names as the host does. TERM etc. are not passed: an explicit env.
  exec bwrap --bind "$r" / --proc /proc --dev-bind /dev /dev --perms 1777 --tmpfs /tmp --ro-bind /sys /sys \
    --ro-bind /etc/resolv.conf /etc/resolv.conf "${binds[@]}" \
    --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --cap-add ALL \
    --chdir "$here" \
    /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
      CI="${CI:-}" DEBIAN_FRONTEND=noninteractive "$@"
}

make_base() {
  command -v debootstrap >/dev/null || { apt-get update -qq; apt-get install -y -qq debootstrap; }
  command -v bwrap >/dev/null || { apt-get update -qq; apt-get install -y -qq bubblewrap; }
  mkdir -p "$cache"
  local tmp="$root.partial"
  rm -rf "$tmp"
  echo "distro-root: debootstrap $suite from $mirror into $root (a few minutes, once per machine)"
  # debootstrap mounts /proc etc. inside the target: a private mount namespace keeps them from the
  # host and drops them when it ends, even if debootstrap dies half way.
  unshare --mount --propagation private -- \
    debootstrap --variant="$variant" --include="$include" --components=main "$suite" "$tmp" "$mirror" \
      >"$cache/$suite-$key.debootstrap.log" 2>&1 \
    || { tail -n 30 "$cache/$suite-$key.debootstrap.log" >&2; die "debootstrap failed (log: $cache/$suite-$key.debootstrap.log)"; }
  # The packages' own documentation and translations are not needed to build and test.
  printf 'path-exclude /usr/share/doc/*\npath-include /usr/share/doc/*/copyright\npath-exclude /usr/share/man/*\npath-exclude /usr/share/locale/*\n' \
    >"$tmp/etc/dpkg/dpkg.cfg.d/01-chat2sbx-nodoc"
  printf 'APT::Install-Recommends "false";\nAcquire::Retries "3";\n' >"$tmp/etc/apt/apt.conf.d/01-chat2sbx"
  mv "$tmp" "$root"
}

case "$action" in
  path) echo "$root" ;;
  prepare)
    mkdir -p "$cache"
    exec 9>"$cache/$suite.lock"
    flock 9   # two runs on one machine share the root: one prepares it at a time
    [[ -x "$root/usr/bin/apt-get" ]] || make_base
    # deps.sh installs only what is missing: a cached root costs one dpkg query per package.
    cp "$here/installers/deps.sh" "$root/usr/local/sbin/chat2sbx-deps"
    (enter "$root" -- /usr/local/sbin/chat2sbx-deps "$@")
    echo "distro-root: $suite ready in $root"
    ;;
  run)
    [[ -x "$root/usr/bin/apt-get" ]] || die "no $suite root yet: run installers/distro-root.sh $suite prepare first"
    enter "$root" "$@"
    ;;
  *) die "usage: distro-root.sh SUITE prepare [--test] | path | run [--bind DIR]... -- CMD..." ;;
esac
