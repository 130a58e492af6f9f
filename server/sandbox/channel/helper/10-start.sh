# chat2sbx in-sandbox helper. Started by the host through one long-lived `sbx exec -i`; speaks the
# framed protocol of server/sandbox/channel/PROTOCOL.md on stdin/stdout. Needs bash, coreutils,
# grep and findutils; uses ripgrep for search when present.
# Every program started costs milliseconds in a VM: the paths every tool call takes (ping, read of
# a text file, bash_start/bash_read of a quick command, small answers) use shell builtins only, and
# start a program only for what needs one (sha256sum, base64 of answer data, the command itself).
# Arguments: <workspace mount path> <managed 0|1> <owner>
# The build joins this script from the parts in helper/, in the order of their numbers; this first
# part sets the helper up: its state and run folders, its workspace, the globals every part reads.
set -u
export LC_ALL=C
HELPER_VERSION=1
WS_REAL=${1:-}
MANAGED=${2:-0}
OWNER=${3:-}
[[ $OWNER =~ ^[A-Za-z0-9-]{1,64}$ ]] || OWNER=
STATE="$HOME/.chat2sbx"
SESS="$STATE/sessions"
mkdir -p "$SESS" "$STATE/run" || exit 3
RUN=$(mktemp -d "$STATE/run/h.XXXXXX") || exit 3
trap 'rm -rf "$RUN"' EXIT
echo $$ >"$RUN/pid"
echo "$OWNER" >"$RUN/owner"
echo $$ >"$STATE/helper.pid"
HELPER_PID=$$
HAVE_RG=0
SMALL_FILE=262144
# A pipe that nobody writes to: `read -t` on it sleeps without forking a `sleep`.
exec {NAPFD}<> <(:)
nap() { read -r -t "$1" -u "$NAPFD" _ 2>/dev/null; return 0; }
command -v rg >/dev/null 2>&1 && HAVE_RG=1

# A cloud sandbox has no host mount: its workspace is a folder of the VM, given as ~/workspace.
# shellcheck disable=SC2088 # the literal "~/" the host sent, not a tilde for the shell to expand
if [ "${WS_REAL:0:2}" = "~/" ]; then
    WS_REAL="$HOME/${WS_REAL:2}"
    # A filesystem moved here from a computer (`sbx move`) still holds the alias of the workspace
    # mount it had there: a link to nothing now.
    if [ -L "$WS_REAL" ] && [ ! -e "$WS_REAL" ]; then rm -f -- "$WS_REAL"; fi
    mkdir -p "$WS_REAL" || exit 3
fi
if [ "$MANAGED" = 1 ] && [ -n "$WS_REAL" ]; then
    if [ -L "$HOME/workspace" ] || [ ! -e "$HOME/workspace" ]; then
        ln -sfn "$WS_REAL" "$HOME/workspace"
    fi
    WS="$HOME/workspace"
elif [ -n "$WS_REAL" ]; then
    WS="$WS_REAL"
else
    WS="$HOME"
fi
