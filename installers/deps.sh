#!/usr/bin/env bash
# Installs the Debian packages chat2sbx needs to build, run and test. Idempotent: installs only
# what is missing, and runs apt-get update only when something is.
#   installers/deps.sh          build + run dependencies
#   installers/deps.sh --test   also what the test suite needs (node/npm, bubblewrap, desktop tools,
#                               a Secret Service for the keychain test, chromium for the tool card test,
#                               the lint label's shellcheck)
#   installers/deps.sh --package  also what packaging needs (build-package.sh: dpkg-shlibdeps, file)
#   installers/deps.sh --bench    also what the benchmarks need (bench/run.sh: wrk, python3, node/npm, uptime)
# installers/deps-commands.txt lists which group gives each program the scripts call; lint.script_commands
# fails when a script calls one that is not there.
#   installers/deps.sh [--test] --print   print the package names for this system, install nothing
# --test includes --package; the groups combine.
# The names hold on Debian 12, Debian 13 and Ubuntu 24.04; the one versioned name (the libFuzzer
# runtime) follows the system's default clang.
set -euo pipefail
print=0
test=0
package=0
bench=0
for arg in "$@"; do
  case "$arg" in
    --test) test=1; package=1 ;;
    --package) package=1 ;;
    --bench) bench=1 ;;
    --print) print=1 ;;
    *) echo "usage: deps.sh [--test] [--package] [--bench] [--print]" >&2; exit 2 ;;
  esac
done

SUDO=()
if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
updated=0
apt_update() {
  ((updated)) && return 0
  "${SUDO[@]}" apt-get update -qq
  updated=1
}

# The major version of the clang that `clang` is or would be: the installed one, else the version
# the distribution's `clang` package depends on (14 on Debian 12, 18 on Ubuntu 24.04, 19 on Debian 13).
clang_major() {
  local v=""
  if command -v clang >/dev/null 2>&1; then
    v=$(clang --version 2>/dev/null | sed -n 's/.*clang version \([0-9][0-9]*\).*/\1/p' | head -n1)
  fi
  if [[ -z "$v" ]]; then
    v=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n1)
  fi
  if [[ -z "$v" && $print -eq 0 ]]; then
    apt_update
    v=$(apt-cache depends clang 2>/dev/null | sed -n 's/^ *Depends: clang-\([0-9][0-9]*\)$/\1/p' | head -n1)
  fi
  echo "$v"
}

packages=(
  build-essential cmake ninja-build pkg-config git lld
  qt6-base-dev qt6-base-dev-tools qt6-httpserver-dev qt6-websockets-dev qtkeychain-qt6-dev
  libqt6sql6-sqlite libsqlite3-dev qt6-svg-dev libqt6svg6 qt6-qpa-plugins qt6-image-formats-plugins
)
if ((package)); then
  # cpack -G DEB: dpkg-shlibdeps computes the Depends and needs `file` (CPackDeb refuses without it)
  packages+=(dpkg-dev file)
fi
if ((bench)); then
  packages+=(wrk python3 nodejs npm procps)
fi
if ((test)); then
  # gnome-keyring + libsecret + dbus: a throwaway Secret Service for the tunnel keychain test
  # clang + libclang-rt: -fsanitize=fuzzer for the fuzz targets
  # chromium: the tool card's browser test (e2e.tool_card_browser, driven by puppeteer-core)
  # the lint label runs shellcheck over the in-sandbox helper and these scripts
  # openbox + trayer + xdotool + x11-utils + imagemagick: the tray on a real X desktop (window manager,
  # XEmbed tray, clicks, window properties, screenshots); at-spi2-core: the accessibility bus; dunst: a
  # notification server that draws notifications with buttons
  packages+=(openbox trayer xdotool x11-utils imagemagick at-spi2-core dunst)
  # gnome-shell + its AppIndicator extension + qt6-wayland: the tray where most sbx users are, a
  # StatusNotifierItem host on Wayland (tests/desktop/gnome-session.sh; Mesa's software renderer
  # draws the headless shell); libglib2.0-bin: gdbus and gsettings, which drive it; gjs: runs the
  # shell's notification service (org.freedesktop.Notifications), which gnome-shell only recommends
  packages+=(gnome-shell gnome-shell-extension-appindicator qt6-wayland libgl1-mesa-dri libglib2.0-bin gjs)
  # iproute2: ss, which the fake tunnel-client's self-test uses to find a listener
  packages+=(nodejs npm bubblewrap xvfb xauth desktop-file-utils lintian dpkg-dev file procps psmisc python3 curl jq iproute2
             gnome-keyring libsecret-1-0 dbus-daemon chromium shellcheck
             clang)
  major=$(clang_major)
  [[ -n "$major" ]] || { echo "deps: cannot tell which clang this system has (apt-cache depends clang)" >&2; exit 1; }
  packages+=("libclang-rt-$major-dev")   # libFuzzer runtime of the default clang (tests/fuzz)
fi

if ((print)); then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # A command already on PATH (e.g. node/npm from another source) is good enough.
    case "$p" in
      nodejs) command -v node >/dev/null 2>&1 && continue ;;
      npm) command -v npm >/dev/null 2>&1 && continue ;;
      cmake) command -v cmake >/dev/null 2>&1 && continue ;;
    esac
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "deps: installing ${missing[*]}"
apt_update
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
