# shellcheck shell=bash
# In the VM, through `sbx exec <vm> bash -c <this> chat2sbx-docker <op> <checkpoint id> [image]...`:
# the images a checkpoint keeps (DockerImageKeeper), as one archive in HOME, which the template holds.
#   save <id> <image>...  docker save into $HOME/.chat2sbx/docker-images/<id>.tar; prints its size.
#                         The archive appears under its name only whole.
#   load <id>             docker load of it in a VM made from the checkpoint, then removes it.
#   drop <id>             removes it (and a partial one) from the source sandbox.
set -eu
op=$1
id=$2
shift 2
case $id in
    ckp_*) ;;
    *) echo "not a checkpoint id: $id" >&2; exit 2 ;;
esac
d="$HOME/.chat2sbx/docker-images"
f="$d/$id.tar"
case $op in
    save)
        mkdir -p "$d"
        docker save -o "$f.partial" -- "$@" >/dev/null
        mv -f "$f.partial" "$f"
        stat -c %s "$f"
        ;;
    load)
        [ -f "$f" ] || { echo "the saved Docker images are not in this sandbox's disk" >&2; exit 3; }
        docker load -i "$f"
        rm -f "$f"
        ;;
    drop)
        rm -f "$f" "$f.partial"
        ;;
    *) echo "unknown operation: $op" >&2; exit 2 ;;
esac
