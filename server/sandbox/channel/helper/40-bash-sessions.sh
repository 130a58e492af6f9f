# ---- bash sessions: a command's watcher, its state, output, input and stop -----------------------

# The watcher of a bash session records the exit code and enforces timeout_ms. It runs as a job of
# its own (a process group apart from the command's and from the handler's) whose parent exits at
# once, so a cancel of the handler that started it, or a restarted helper, leaves it alone; and it
# is a subshell, not a new program. $1 session path prefix (see session_at), $2 timeout in ms (0: none),
# $3 working directory, $4 the command; its environment is in the session's `env` file when it has one.
# (A subshell has them in its arguments: every file made costs a quick command tenths of a millisecond
# in the VM's filesystem.)
watch_session() {
    set +u
    local d=$1 t=$2 kv cmd=$4 in=/dev/null hp='' pid tp='' s code
    echo "$BASHPID" >"${d}watcher.pid"
    cd -- "$3" || exit 1
    # shellcheck disable=SC2163  # kv is NAME=VALUE: exported as that variable
    [ -f "${d}env" ] && while IFS= read -r -d "" kv; do export "$kv"; done <"${d}env"
    if [ -p "${d}stdin" ]; then
        # The holder keeps a writer open so the command sees EOF only when bash_input closes stdin.
        # shellcheck disable=SC2217  # its stdin is closed on purpose: the pipe is held on fd 3
        sleep infinity 3<>"${d}stdin" </dev/null >/dev/null 2>&1 &
        hp=$!
        echo "$hp" >"${d}stdin.holder"
        in=${d}stdin
    fi
    # Monitor mode puts the command in its own process group (pgid = its pid).
    set -m
    bash -c "$cmd" <"$in" >>"${d}output" 2>&1 &
    pid=$!
    set +m
    echo "$pid" >"${d}pgid"
    if [ "$t" -gt 0 ]; then
        printf -v s '%d.%03d' $((t / 1000)) $((t % 1000))
        ( sp=; trap "kill \$sp 2>/dev/null; exit 0" TERM
          sleep "$s" & sp=$!; wait "$sp"
          echo timeout >"${d}timed_out"
          kill -TERM -- "-$pid" 2>/dev/null
          sleep 1.5 & sp=$!; wait "$sp"
          kill -KILL -- "-$pid" 2>/dev/null ) &
        tp=$!
    fi
    wait "$pid"; code=$?
    [ -n "$tp" ] && kill "$tp" 2>/dev/null
    [ -n "$hp" ] && kill "$hp" 2>/dev/null
    [ -f "${d}timed_out" ] && code=124
    echo "$code" >"${d}exit_code"
    exit 0
}

valid_session() { [[ $1 =~ ^bash_[0-9a-f]{24}$ ]]; }

# Sets D to the path prefix of session $1's files: "<sessions>/<id>." (flat files: creating them needs
# no `mkdir` program), or "<sessions>/<id>/" for a session an earlier helper made as a directory.
session_at() { if [ -d "$SESS/$1" ]; then D=$SESS/$1/; else D=$SESS/$1.; fi; }
session_exists() { [ -f "${D}started" ]; }

session_state() { # prefix -> SS="exited:<code>" / "running" / "lost" (builtins only: no fork)
    local d=$1 c='' w='' t=''
    [ -f "${d}exit_code" ] && read -r c <"${d}exit_code"
    if [[ $c =~ ^[0-9]+$ ]]; then
        if [ -f "${d}timed_out" ]; then SS="timedout:$c"; else SS="exited:$c"; fi
    elif [ -f "${d}watcher.pid" ]; then
        # exit_code is written in place: empty for a moment while the watcher writes it.
        read -r w <"${d}watcher.pid"
        if [[ $w =~ ^[0-9]+$ ]] && ! kill -0 "$w" 2>/dev/null && [ ! -s "${d}exit_code" ]; then SS=lost; else SS=running; fi
    else
        # `started` is written before the watcher starts; a watcher that never wrote its pid within
        # 10 s (the helper died in between) never will.
        SS=running
        read -r t 2>/dev/null <"${d}started"
        now_ms
        [[ $t =~ ^[0-9]+$ ]] && ((NOW - t > 10000)) && SS=lost
    fi
}

now_ms() { local us=${EPOCHREALTIME/[.,]/}; NOW=${us:0:${#us}-3}; }   # sets NOW (no fork)

# The pause before look $1 of a wait for a quick command: 0.2 ms for the first 50 looks (10 ms, in
# which most commands an agent runs have ended; a look is a few builtins), then $2 seconds. Looking
# every 1 ms cost a quick `bash` 0.6 ms of its 4.5 in the helper (bench/README.md).
nap_look() { if (($1 < 50)); then nap 0.0002; else nap "$2"; fi; }

# While the command of session prefix $1 runs, waits up to $2 ms for its exit (nap_look, then every
# 3 ms). Leaves the state in SS.
wait_exit() {
    local d=$1 deadline n=0
    now_ms; deadline=$((NOW + $2))
    session_state "$d"
    while [ "$SS" = running ] && ((NOW < deadline)); do
        nap_look "$n" 0.003
        n=$((n + 1))
        now_ms
        session_state "$d"
    done
}

# Up to $3 bytes of session prefix $1's output from offset $2 into $O, with meta size and state ($4).
# The state must have been taken before, so an exit seen means all output is in the file.
read_output() {
    local d=$1 off=$2 max=$3 c=
    if [ ! -s "${d}output" ]; then
        meta size 0
    elif ! IFS= read -r -d '' -n "$SMALL_FILE" c <"${d}output"; then
        # The whole output is in c (EOF before a NUL byte or the bound): no program needed.
        meta size "${#c}"
        ((max > 0 && off < ${#c})) && printf '%s' "${c:off:max}" >"$O"
    else
        tail -c +$((off + 1)) -- "${d}output" 2>/dev/null | head -c "$max" >"$O"
        meta size "$(stat -c %s -- "${d}output" 2>/dev/null || echo 0)"
    fi
    meta state "$4"
    [ -f "${d}timed_out" ] && meta timed_out 1
    return 0
}

# id cwd timeout_ms command stdin(0/1) env(NUL separated NAME=VALUE) [wait_ms [read_max]]
# With wait_ms, waits that long (up to 9999) for the exit instead of 20 ms; with read_max, the answer
# also carries what bash_read <id> 0 <read_max> would: one round trip for a quick command.
op_bash_start() {
    local sid cwd d t t2 wait=20 rmax=
    sid=${A[0]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    resolve "${A[1]:-}"; cwd=$RP
    t=${A[2]:-}
    [[ $t =~ ^[0-9]+$ ]] || t=0
    [[ ${A[6]:-} =~ ^[0-9]{1,4}$ ]] && wait=${A[6]}
    [[ ${A[7]:-} =~ ^[0-9]{1,9}$ ]] && rmax=${A[7]}
    if [ ! -d "$cwd" ]; then fail enoent "working directory does not exist: ${A[1]:-}"; return; fi
    session_at "$sid"; d=$D
    if session_exists; then meta existed 1; return; fi
    # noclobber opens with O_EXCL: of two starts of one session id, one wins.
    now_ms
    set -C
    if echo "$NOW" 2>/dev/null >"${d}started"; then t2=0; else t2=1; fi
    set +C
    if [ "$t2" != 0 ]; then
        if session_exists; then meta existed 1; else fail eio "cannot create the session's files"; fi
        return
    fi
    ((${ALEN[5]:-0} > 0)) && argfile 6 "${d}env"
    : >"${d}output"
    if [ "${A[4]:-0}" = 1 ] && ! mkfifo -m 600 "${d}stdin"; then
        echo 127 >"${d}exit_code"; fail eio "cannot create the stdin pipe"; return
    fi
    ( set -m; watch_session "$d" "$t" "$cwd" "${A[3]:-}" </dev/null >/dev/null 2>&1 & )
    local i
    for ((i = 0; i < 500; i++)); do [ -f "${d}pgid" ] || [ -f "${d}exit_code" ] && break; nap_look "$i" 0.001; done
    # A quick command is usually done a moment later: the first snapshot then sees its exit.
    wait_exit "$d" "$wait"
    meta started 1
    [ -n "$rmax" ] && read_output "$d" 0 "$rmax" "$SS"
    return 0
}

op_bash_read() { # id offset max [wait_ms: while running, wait up to this long for the exit]
    local sid off max d wait
    sid=${A[0]:-}; off=${A[1]:-}; max=${A[2]:-}; wait=${A[3]:-0}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    [[ $off =~ ^[0-9]+$ ]] || off=0
    [[ $max =~ ^[0-9]+$ ]] || max=60000
    [[ $wait =~ ^[0-9]{1,4}$ ]] || wait=0
    session_at "$sid"; d=$D
    session_exists || { fail enoent "no such session in this sandbox"; return; }
    wait_exit "$d" "$wait"
    read_output "$d" "$off" "$max" "$SS"
}

op_bash_stop() { # id
    local sid d pg i st
    sid=${A[0]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    session_at "$sid"; d=$D
    session_exists || { fail enoent "no such session in this sandbox"; return; }
    for ((i = 0; i < 100; i++)); do [ -f "${d}pgid" ] || [ -f "${d}exit_code" ] && break; nap 0.01; done
    if [ ! -f "${d}exit_code" ] && [ -f "${d}pgid" ]; then
        read -r pg <"${d}pgid"
        kill -TERM -- "-$pg" 2>/dev/null
        for ((i = 0; i < 15; i++)); do
            kill -0 -- "-$pg" 2>/dev/null || break
            nap 0.1
        done
        kill -KILL -- "-$pg" 2>/dev/null
    fi
    for ((i = 0; i < 100; i++)); do
        session_state "$d"; st=$SS
        [ "$st" = running ] || break
        nap 0.02
    done
    meta state "$st"
}

op_bash_input() { # id close(0/1) data(last)
    local sid d hp tmp rc
    sid=${A[0]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    session_at "$sid"; d=$D
    session_exists || { fail enoent "no such session in this sandbox"; return; }
    session_state "$d"
    [ "$SS" = running ] || { fail einval "the command has already exited"; return; }
    [ -p "${d}stdin" ] || { fail einval "the command was started without stdin: true"; return; }
    [ -f "${d}stdin.closed" ] && { fail einval "stdin of this command is already closed"; return; }
    if [ "${ALEN[2]:-0}" -gt 0 ]; then
        tmp="$RUN/$ID.in"
        argfile 3 "$tmp"
        # Opened read-write, the pipe never blocks the open; a command that does not read blocks the write.
        timeout 10 cat -- "$tmp" 1<>"${d}stdin"; rc=$?
        rm -f -- "$tmp"
        if [ "$rc" != 0 ]; then fail eio "the command did not read its input within 10 s"; return; fi
    fi
    meta written "${ALEN[2]:-0}"
    if [ "${A[1]:-0}" = 1 ]; then
        : >"${d}stdin.closed"
        if [ -f "${d}stdin.holder" ]; then read -r hp <"${d}stdin.holder"; kill "$hp" 2>/dev/null; fi
        meta closed 1
    fi
}

op_bash_status() { # id...
    local i sid
    for ((i = 1; i <= ${#A[@]}; i++)); do
        sid=${A[i - 1]}
        valid_session "$sid" || continue
        session_at "$sid"
        if session_exists; then session_state "$D"; meta "$sid" "$SS"; else meta "$sid" missing; fi
    done
}
