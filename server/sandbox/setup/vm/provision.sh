# shellcheck shell=sh
# In the builder VM, as root, through `sbx exec <builder> sh -c <this> chat2sbx-provision <command>...`:
# what the in-sandbox helper needs (SandboxChannel::helperCommands), installed with the image's
# package manager when missing, then checked.
set -e
need="bash $*"
missing=""
for c in $need; do command -v "$c" >/dev/null 2>&1 || missing="$missing $c"; done
if [ -n "$missing" ]; then
  echo "installing:$missing"
  if command -v apt-get >/dev/null 2>&1; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bash coreutils util-linux grep findutils git tar gzip
  elif command -v apk >/dev/null 2>&1; then apk add --no-cache bash coreutils util-linux grep findutils git tar gzip
  elif command -v dnf >/dev/null 2>&1; then dnf install -y bash coreutils util-linux grep findutils git tar gzip
  else echo "no supported package manager to install:$missing" >&2; exit 1; fi
fi
for c in $need; do command -v "$c" >/dev/null 2>&1 || { echo "still missing: $c" >&2; exit 1; }; done
test "$(printf 'chat2sbx' | base64)" = "Y2hhdDJzYng="
echo "helper prerequisites present: $need"
