#!/usr/bin/env bash
# Installs the Debian packages chat2sbx needs to build, run and test. Idempotent: installs only
# what is missing, and runs apt-get update only when something is.
#   installers/deps.sh          build + run dependencies
#   installers/deps.sh --test   also what the test suite needs (node/npm, bubblewrap, desktop tools,
#                               a Secret Service for the keychain test, chromium for the tool card test)
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git lld
  qt6-base-dev qt6-base-dev-tools qt6-httpserver-dev qt6-websockets-dev qtkeychain-qt6-dev
  libqt6sql6-sqlite libsqlite3-dev qt6-svg-dev libqt6svg6 qt6-qpa-plugins qt6-image-formats-plugins
)
if [[ "${1:-}" == "--test" ]]; then
  # gnome-keyring + libsecret + dbus: a throwaway Secret Service for the tunnel keychain test
  # clang + libclang-rt: -fsanitize=fuzzer for the fuzz targets
  # chromium: the tool card's browser test (e2e.tool_card_browser, driven by puppeteer-core)
  packages+=(nodejs npm bubblewrap xvfb xauth desktop-file-utils lintian dpkg-dev file procps psmisc python3 curl jq
             gnome-keyring libsecret-1-0 dbus-daemon chromium
             clang libclang-rt-14-dev)   # libFuzzer targets in tests/fuzz (clang 14 is bookworm's default)
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

SUDO=()
if [[ $(id -u) -ne 0 ]]; then SUDO=(sudo); fi
echo "deps: installing ${missing[*]}"
"${SUDO[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${SUDO[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
