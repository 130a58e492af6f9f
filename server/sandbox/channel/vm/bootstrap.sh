# shellcheck shell=bash
# In the VM, through `sbx exec -i <vm> bash -c <this> chat2sbx-boot <size> <helper args>...`: the
# first <size> bytes of stdin are the helper script (SandboxChannel::helperScript); it is written
# whole under its name, then runs with the rest of stdin as its channel.
set -e
d="$HOME/.chat2sbx"
mkdir -p "$d"
t="$d/helper.sh.$$"
head -c "$1" >"$t"
mv -f "$t" "$d/helper.sh"
shift
exec bash "$d/helper.sh" "$@"
