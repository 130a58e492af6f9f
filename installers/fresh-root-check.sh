#!/usr/bin/env bash
# What a new user on a fresh Debian does, in a fresh root: debootstrap --variant=minbase SUITE into
# DIR (nothing cached, nothing of this machine's), the source tree copied in (git archive of HEAD),
# then inside with chroot: installers/deps.sh --package, the release build with its tests, the unit
# label, installers/build-package.sh, and the package installed with apt-get and run.
#   installers/fresh-root-check.sh SUITE DIR      (SUITE: trixie = Debian 13, bookworm = Debian 12,
#                                                  noble = Ubuntu 24.04)
# Needs root and Debian's archive. Prints each step with its time; logs stay in DIR/logs. DIR must
# not exist (the check is of a fresh root). /proc, /dev and /sys are mounted in a mount namespace of
# the script's own, so nothing stays mounted however it ends.
# The single-quoted commands are expanded inside the root, by its own bash:
# shellcheck disable=SC2016
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-}
dir=${2:-}
die() { echo "fresh-root-check: $*" >&2; exit 1; }
[[ $suite =~ ^[a-z]+$ && -n $dir ]] || die "usage: fresh-root-check.sh SUITE DIR"
[[ $(id -u) -eq 0 ]] || die "needs root (debootstrap, chroot)"
[[ ! -e $dir ]] || die "$dir exists: give a new directory (the check is of a fresh root)"
command -v debootstrap >/dev/null || die "debootstrap is not installed (apt-get install debootstrap)"
command -v git >/dev/null || die "git is not installed (installers/deps.sh installs it)"

# Ubuntu: its archive, main and universe (Qt 6 is in universe), debootstrap's script for Ubuntu
# (gutsy: every release since), checked with Ubuntu's keyring where the host has it.
debootstrap_args=(--variant=minbase --include=ca-certificates)
case $suite in
  jammy|noble|oracular|plucky|questing)
    mirror=${CHAT2SBX_UBUNTU_MIRROR:-http://archive.ubuntu.com/ubuntu}
    debootstrap_args+=("--components=main,universe")
    script=/usr/share/debootstrap/scripts/gutsy
    if [[ -f /usr/share/keyrings/ubuntu-archive-keyring.gpg ]]; then
      debootstrap_args+=(--keyring=/usr/share/keyrings/ubuntu-archive-keyring.gpg)
    else
      echo "fresh-root-check: no Ubuntu keyring here (package ubuntu-keyring): the root's packages are not signature-checked" >&2
      debootstrap_args+=(--no-check-gpg)
    fi
    ;;
  *)
    mirror=${CHAT2SBX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
    script=""
    ;;
esac
logs="$dir/logs"
mkdir -p "$dir/root" "$logs"
dir=$(cd "$dir" && pwd)
root="$dir/root"
logs="$dir/logs"
start=$SECONDS
step() { echo "fresh-root-check [$((SECONDS - start)) s] $*"; }

step "debootstrap --variant=minbase $suite from $mirror"
unshare --mount --propagation private -- \
  debootstrap "${debootstrap_args[@]}" "$suite" "$root" "$mirror" ${script:+"$script"} >"$logs/debootstrap.log" 2>&1 \
  || { tail -n 20 "$logs/debootstrap.log" >&2; die "debootstrap failed (log: $logs/debootstrap.log)"; }

if [[ -n $script ]]; then   # apt in the root sees universe too
  printf 'deb %s %s main universe\ndeb %s %s-updates main universe\n' "$mirror" "$suite" "$mirror" "$suite" >"$root/etc/apt/sources.list"
fi

step "source tree (git archive HEAD) into /src"
mkdir -p "$root/src"
git -C "$here" archive --format=tar HEAD | tar -x -C "$root/src"

# Everything inside runs in a mount namespace of its own with /proc, /dev and /sys for the chroot.
inside() {   # inside LOGNAME CMD...: the command's output goes to the log; its tail on failure
  local log="$logs/$1.log"; shift
  if ! unshare --mount --propagation private -- bash -c '
      set -e
      r=$1; shift
      mount -t proc proc "$r/proc"
      mount --rbind /dev "$r/dev"
      mount --rbind /sys "$r/sys"
      cp /etc/resolv.conf "$r/etc/resolv.conf"
      exec chroot "$r" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"' _ "$root" "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "failed: $* (log: $log)"
  fi
}

step "installers/deps.sh --package (as a new user: the build and packaging groups)"
inside deps bash -c 'cd /src && installers/deps.sh --package'
step "release build with its tests"
inside build bash -c 'cd /src && cmake --preset release -DCHAT2SBX_BUILD_TESTS=ON -DCHAT2SBX_BUILD_BENCH=OFF \
  && cmake --build --preset release -j "$(nproc)"'
step "ctest -L unit"
inside unit bash -c 'cd /src && ctest --test-dir build/release -L "^unit$" -j "$(nproc)" --output-on-failure --no-tests=error'
grep -E "tests passed|tests failed" "$logs/unit.log" | sed 's/^/  /'
step "installers/build-package.sh"
inside package bash -c 'cd /src && installers/build-package.sh --tree build/release'
deb=$(tail -n 1 "$logs/package.log")
[[ $deb == *.deb ]] || die "build-package.sh did not print a .deb (log: $logs/package.log)"
step "apt-get install $deb, then chat2sbx --version and chat2sbx status"
[[ $deb == /* ]] || deb="./$deb"   # apt-get takes a local file by a path with a slash in front
inside install bash -c "cd /src && apt-get install -y -qq '$deb' && chat2sbx --version && (chat2sbx status || true)"
sed 's/^/  /' "$logs/install.log" | tail -n 12
# shellcheck source=/dev/null
. "$root/etc/os-release"
step "done: $PRETTY_NAME from a minbase root: deps, release build, unit label, package, install"
