# shellcheck shell=bash
# In a sandbox moved to the cloud, through `sbx --cloud exec <vm> bash -c <this> chat2sbx-move <op>`
# (SandboxMover): the folder of this computer it worked on does not travel with `sbx move`, so it is
# copied in with `sbx --cloud cp` to $HOME/.chat2sbx-incoming-workspace first.
#   clear  removes a copy a crash interrupted (the next copy is made whole, never inside it).
#   place  makes the copy ~/workspace; the link to the computer's workspace mount, which came along
#          with the filesystem and leads nowhere now, goes first. Nothing to place: nothing done.
set -eu
incoming="$HOME/.chat2sbx-incoming-workspace"
workspace="$HOME/workspace"
case "${1:-}" in
clear)
    rm -rf -- "$incoming"
    ;;
place)
    [ -d "$incoming" ] || exit 0
    if [ -L "$workspace" ]; then rm -f -- "$workspace"; else rm -rf -- "$workspace"; fi
    mv -- "$incoming" "$workspace"
    ;;
*)
    echo "usage: moved-workspace.sh clear|place" >&2
    exit 2
    ;;
esac
