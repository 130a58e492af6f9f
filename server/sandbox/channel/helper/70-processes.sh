# ---- stuck handlers and replaced helpers --------------------------------------------------------
# Every handler runs as a job of its own (set -m in 80-main.sh): its process group id is in $RUN/<id>.pg
# while it runs, so a `cancel` from the host (the request timed out there) can kill it.

# 0 when process $1 runs this script (a helper or one of its handlers).
is_helper() {
    local parts
    [ -r "/proc/$1/cmdline" ] || return 1
    mapfile -d '' -t parts 2>/dev/null <"/proc/$1/cmdline" || return 1
    [[ " ${parts[*]:0:3} " == *"/.chat2sbx/helper.sh "* ]]
}

# 0 when process $1 no longer exists (or is a zombie nobody reaped yet).
is_gone() {
    local line
    IFS= read -r line 2>/dev/null <"/proc/$1/stat" || return 0   # 2> first: it also hides a failed open
    line=${line##*) }
    [ "${line%% *}" = Z ]
}

# SIGKILLs process $1, every process descended from it (timeout(1) moves its command to a group of
# its own) and, with $2 = group, its process group. Session watchers (detached jobs whose parent exited) are no
# longer descendants of the handler that started them, so bash sessions are left alone.
kill_tree() {
    local line pid todo all=() kids=() snap="$RUN/proc.$BASHPID"
    # Every process's stat line, with one `cat`; each process's children are then found by one grep
    # of that file (its parent is the field after the state that follows the ") " ending its name).
    # Reading each file, or each line, in bash took seconds where /proc holds thousands of processes.
    cat /proc/[0-9]*/stat >"$snap" 2>/dev/null
    todo=("$1")
    while ((${#todo[@]})); do
        pid=${todo[0]}; todo=("${todo[@]:1}")
        all+=("$pid")
        grep -E "^[0-9]+ \(.*\) [A-Za-z] $pid " "$snap" >"$snap.k" 2>/dev/null
        mapfile -t kids <"$snap.k"
        for line in "${kids[@]}"; do todo+=("${line%% *}"); done
    done
    rm -f -- "$snap" "$snap.k"
    if [ "${2:-}" = group ]; then kill -KILL -- "-$1" 2>/dev/null; fi
    kill -KILL -- "${all[@]}" 2>/dev/null
    return 0
}

# Waits up to 2 s for process $1 to be gone.
wait_gone() {
    local i
    for ((i = 0; i < 40; i++)); do
        is_gone "$1" && return 0
        nap 0.05
    done
    is_gone "$1"
}

# Kills the handler group recorded in file $1 (with $2 = process: only that process and its
# descendants), unless its leader is alive and no longer a helper's (the number was reused).
kill_recorded_group() {
    local pg
    IFS= read -r pg 2>/dev/null <"$1" || return 0
    [[ $pg =~ ^[0-9]+$ ]] && ((pg > 1)) || return 0
    if [ -e "/proc/$pg" ] && ! is_helper "$pg"; then return 0; fi
    kill_tree "$pg" "${2:-group}"
}

# The run folders of helpers that are gone: their handlers (which may still hang) are killed and the
# folders removed. A folder of a helper that still runs is left alone.
sweep_stale_runs() {
    local d owner f
    for d in "$STATE"/run/h.*; do
        if [ ! -d "$d" ] || [ "$d" = "$RUN" ]; then continue; fi
        owner=
        [ -f "$d/pid" ] && IFS= read -r owner <"$d/pid"
        if [[ $owner =~ ^[0-9]+$ ]] && ! is_gone "$owner" && is_helper "$owner"; then continue; fi
        for f in "$d"/*.pg; do
            [ -f "$f" ] && kill_recorded_group "$f"
        done
        [ -f "$d/writer.pid" ] && kill_recorded_group "$d/writer.pid" process
        rm -rf -- "$d"
    done
}

# An owner (the server, or one CLI command) runs one channel per sandbox, so its helper of an
# earlier channel that still runs is a leftover: its host was killed (-9) and it never noticed its
# closed stdin (stopped, or waiting for a handler stuck on a FIFO). It goes, with its handlers,
# before this one serves; a host restarted after a kill -9 does not know its pid to ask for a
# `reap`. Other owners' helpers are left alone.
reap_predecessors() {
    local d owner tag
    [ -n "$OWNER" ] || return 0
    for d in "$STATE"/run/h.*; do
        if [ ! -d "$d" ] || [ "$d" = "$RUN" ]; then continue; fi
        tag=
        [ -f "$d/owner" ] && IFS= read -r tag <"$d/owner"
        [ "$tag" = "$OWNER" ] || continue
        owner=
        [ -f "$d/pid" ] && IFS= read -r owner <"$d/pid"
        if ! [[ $owner =~ ^[0-9]+$ ]] || [ "$owner" = "$HELPER_PID" ]; then continue; fi
        if ! is_gone "$owner" && is_helper "$owner"; then
            kill_tree "$owner"
            wait_gone "$owner"
        fi
    done
}

# `cancel` (no response): kills the handler of request $1 if it still runs. A handler records its
# group itself once it runs, which on a loaded VM can be later than the host's timeout: the mark
# written first makes a handler that has not recorded itself yet end at once (it looks for the mark
# after recording, so one of the two always sees the other).
# The mark is written here, in the main loop; the kill (a walk over /proc) runs as a job of its own,
# so the main loop goes on reading requests (a health ping must not wait for it).
cancel_request() {
    local t=$1
    [[ $t =~ ^[0-9]+$ ]] || return 0
    : >"$RUN/cancel.$t"
    kill_cancelled "$t" </dev/null &
}

kill_cancelled() {
    local t=$1
    if [ -f "$RUN/$t.pg" ]; then
        kill_recorded_group "$RUN/$t.pg"
        rm -f -- "$RUN/cancel.$t"   # it had started: it is gone now, or had answered
    fi
    rm -rf -- "${RUN:?}/$t" "$RUN/$t".*
}

op_reap() { # pid of the helper this one replaced
    local old=${A[0]:-}
    [[ $old =~ ^[0-9]+$ ]] || { fail einval "bad pid"; return; }
    if [ "$old" != "$HELPER_PID" ] && ! is_gone "$old" && is_helper "$old"; then
        kill_tree "$old"
        wait_gone "$old" || { meta gone 0; return; }
    fi
    meta gone 1
    sweep_stale_runs
}
