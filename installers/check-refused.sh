#!/usr/bin/env bash
# Checks that this system's package manager refuses a chat2sbx .deb built for another Qt minor
# release (its libqt6httpserver6 pin): `apt-get install --simulate` must fail on that dependency.
# Changes nothing on the system.
#   installers/check-refused.sh DEB
set -euo pipefail
deb=$(realpath "${1:?usage: check-refused.sh DEB}")
# shellcheck source=/dev/null
. /etc/os-release
out=$(apt-get install --simulate --no-install-recommends "$deb" 2>&1) && {
  echo "$out" >&2
  echo "FAIL: $PRETTY_NAME would install $(basename "$deb")" >&2
  exit 1
}
grep -q 'libqt6httpserver6' <<<"$out" || {
  echo "$out" >&2
  echo "FAIL: apt refused $(basename "$deb") on $PRETTY_NAME, but not for its QtHttpServer pin" >&2
  exit 1
}
echo "check-refused: $PRETTY_NAME refuses $(basename "$deb"): $(grep -m1 'libqt6httpserver6' <<<"$out" | sed 's/^ *//')"
