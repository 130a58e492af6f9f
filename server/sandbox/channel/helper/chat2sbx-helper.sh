# chat2sbx in-sandbox helper. Started by the host through one long-lived `sbx exec -i`; speaks the
# framed protocol of server/sandbox/channel/PROTOCOL.md on stdin/stdout. Needs bash, coreutils,
# grep and findutils; uses ripgrep for search when present.
# Every program started costs milliseconds in a VM: the paths every tool call takes (ping, read of
# a text file, bash_start/bash_read of a quick command, small answers) use shell builtins only, and
# start a program only for what needs one (sha256sum, base64 of answer data, the command itself).
# Arguments: <workspace mount path> <managed 0|1> <owner>
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

# The watcher of a bash session records the exit code and enforces timeout_ms. It runs as a job of
# its own (a process group apart from the command's and from the handler's) whose parent exits at
# once, so a cancel of the handler that started it, or a restarted helper, leaves it alone; and it
# is a subshell, not a new program. $1 session path prefix (see session_at), $2 timeout in ms (0: none).
watch_session() {
    set +u
    local d=$1 t=$2 cwd kv cmd in=/dev/null hp= pid tp= s code
    echo "$BASHPID" >"${d}watcher.pid"
    IFS= read -r -d "" cwd <"${d}cwd"; cd -- "$cwd" || exit 1
    while IFS= read -r -d "" kv; do export "$kv"; done <"${d}env"
    IFS= read -r -d "" cmd <"${d}command"
    if [ -p "${d}stdin" ]; then
        # The holder keeps a writer open so the command sees EOF only when bash_input closes stdin.
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

# Answers go through one writer process, the only one that writes to stdout, so lines never
# interleave and no lock program runs per answer. A handler leaves its line in $RUN/<id>.resp (for
# a large answer only the head, the base64 data stays in $RUN/<id>.b64) and sends "<id> s|l" on
# RESPFD (a pipe; such short writes are atomic).
exec {RESPFD}<> <(:)
respond() { # id status datafile
    local d=- kind=s
    if [ -s "$3" ]; then
        base64 -w0 <"$3" >"$RUN/$1.b64"
        IFS= read -r -N 65536 d <"$RUN/$1.b64" && kind=l
    fi
    if [ "$kind" = s ]; then
        printf '%s %s %s %s\n' "$1" "$2" "${MV:--}" "$d" >"$RUN/$1.resp"
    else
        printf '%s %s %s ' "$1" "$2" "${MV:--}" >"$RUN/$1.resp"
    fi
    printf '%s %s\n' "$1" "$kind" >&"$RESPFD"
}

# Files of answered requests are removed 32 at a time (one rm), a large answer's at once.
response_writer() {
    local rq kind line done_ids=() f
    while :; do
        # The writer holds the pipe's write end too, so it never sees EOF: every 5 s without an
        # answer it checks that the helper is still there, and ends with it.
        if ! IFS=' ' read -r -t 5 rq kind <&"$RESPFD"; then
            kill -0 "$HELPER_PID" 2>/dev/null && continue
            break
        fi
        [ "$kind" = quit ] && break
        [[ $rq =~ ^[0-9]+$ ]] || continue
        # A request cancelled just as it answered has lost its files: nothing to write.
        line=
        IFS= read -r -d '' line 2>/dev/null <"$RUN/$rq.resp"
        [ -n "$line" ] || continue
        printf '%s' "$line"
        if [ "$kind" = l ]; then
            cat -- "$RUN/$rq.b64"
            printf '\n'
            rm -f -- "$RUN/$rq".*
            continue
        fi
        done_ids+=("$rq")
        if ((${#done_ids[@]} >= 32)); then
            f=()
            for rq in "${done_ids[@]}"; do f+=("$RUN/$rq".*); done
            rm -f -- "${f[@]}"
            done_ids=()
        fi
    done
}

# The decoded request ($BIN) is a sequence of "<length>\n<bytes>" arguments. Small ones are read into
# A[] without forking; AOFF/ALEN locate every argument for argfile (NUL bytes, large content). An
# argument longer than 64 KiB must be the last one.
parse_args() {
    local off=0 len v i=0
    A=() AOFF=() ALEN=()
    exec {PFD}<"$BIN"
    while IFS= read -r len <&"$PFD"; do
        [[ $len =~ ^[0-9]+$ ]] || break
        off=$((off + ${#len} + 1))
        AOFF[i]=$off
        ALEN[i]=$len
        if ((len > 65536)); then break; fi
        v=
        ((len > 0)) && IFS= read -r -d '' -N "$len" v <&"$PFD"
        A[i]=$v
        off=$((off + len))
        i=$((i + 1))
    done
    exec {PFD}<&-
}
# Argument i (1-based), byte-exact, into a file.
argfile() {
    if [ "${ALEN[$1 - 1]:-0}" = 0 ]; then : >"$2"; return; fi
    tail -c +$((AOFF[$1 - 1] + 1)) -- "$BIN" | head -c "${ALEN[$1 - 1]}" >"$2"
}

# Response metadata: "key=value;..." with no spaces, semicolons or newlines in keys or values.
meta() { MV+="$1=$2;"; }
fail() { meta code "$1"; printf '%s' "$2" >"$O"; ST=err; }

# Sets RP to the path $1 resolves to (a variable, not output: no command-substitution fork).
resolve() {
    RP=$1
    case $RP in
        '') RP=$WS ;;
        '~') RP=$HOME ;;
        '~/'*) RP=$HOME/${RP#\~/} ;;
        /*) ;;
        *) RP=$WS/$RP ;;
    esac
}

# Fails with enoent/eacces/eisdir/enotdir for a path that must be a readable regular file.
need_file() {
    local p=$1
    if [ ! -e "$p" ] && [ ! -L "$p" ]; then fail enoent "no such file: $2"; return 1; fi
    if [ -d "$p" ]; then fail eisdir "is a directory, not a file: $2"; return 1; fi
    if [ ! -e "$p" ]; then fail enoent "dangling symbolic link: $2"; return 1; fi
    if [ ! -r "$p" ]; then fail eacces "permission denied: $2"; return 1; fi
    return 0
}

# A NUL byte in the first 8 KiB: read stops at it before 8192 bytes (status 0); EOF gives status 1.
is_binary() { local x; IFS= read -r -d '' -n 8192 x 2>/dev/null <"$1" && ((${#x} < 8192)); }

# Sets SHA to the sha256 of file $1.
sha_of() { SHA=$(sha256sum <"$1"); SHA=${SHA%% *}; }

valid_session() { [[ $1 =~ ^bash_[0-9a-f]{24}$ ]]; }

# Sets D to the path prefix of session $1's files: "<sessions>/<id>." (flat files: creating them needs
# no `mkdir` program), or "<sessions>/<id>/" for a session an earlier helper made as a directory.
session_at() { if [ -d "$SESS/$1" ]; then D=$SESS/$1/; else D=$SESS/$1.; fi; }
session_exists() { [ -f "${D}started" ]; }

session_state() { # prefix -> SS="exited:<code>" / "running" / "lost" (builtins only: no fork)
    local d=$1 c= w= t=
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

op_ping() { meta pong 1; meta version "$HELPER_VERSION"; meta pid "$HELPER_PID"; meta rg "$HAVE_RG"; }

# While the command of session prefix $1 runs, waits up to $2 ms for its exit: looks every 1 ms for
# the first 20 ms (a quick command), then every 3 ms. Leaves the state in SS.
wait_exit() {
    local d=$1 deadline n=0
    now_ms; deadline=$((NOW + $2))
    session_state "$d"
    while [ "$SS" = running ] && ((NOW < deadline)); do
        if ((n < 20)); then nap 0.001; else nap 0.003; fi
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
    set -C; echo "$NOW" 2>/dev/null >"${d}started"; t2=$?; set +C
    if [ "$t2" != 0 ]; then
        if session_exists; then meta existed 1; else fail eio "cannot create the session's files"; fi
        return
    fi
    printf '%s' "${A[3]:-}" >"${d}command"
    argfile 6 "${d}env"
    printf '%s' "$cwd" >"${d}cwd"
    : >"${d}output"
    if [ "${A[4]:-0}" = 1 ] && ! mkfifo -m 600 "${d}stdin"; then
        echo 127 >"${d}exit_code"; fail eio "cannot create the stdin pipe"; return
    fi
    ( set -m; watch_session "$d" "$t" </dev/null >/dev/null 2>&1 & )
    local i
    for ((i = 0; i < 500; i++)); do [ -f "${d}pgid" ] || [ -f "${d}exit_code" ] && break; nap 0.001; done
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

op_read() { # path line_offset(1-based) line_limit max_bytes
    local shown p off lim max
    shown=${A[0]:-}; resolve "$shown"; p=$RP; off=${A[1]:-}; lim=${A[2]:-}; max=${A[3]:-}
    need_file "$p" "$shown" || return
    local c= n out
    if [[ $off =~ ^[1-9][0-9]{0,8}$ && $lim =~ ^[0-9]{1,9}$ && $max =~ ^[0-9]{1,9}$ ]] \
        && ! IFS= read -r -d '' -n "$SMALL_FILE" c <"$p"; then
        # A text file under SMALL_FILE bytes is read whole by the shell (EOF came before any NUL
        # byte): size, line count and the selected lines need no program. When the answer is the
        # whole file, the host hashes it (whole=1) and no sha256sum runs either.
        mapfile -t L <"$p"
        n=${#L[@]}
        meta size "${#c}"; meta binary 0; meta total_lines "$n"
        if ((off == 1 && lim >= n && max > ${#c})); then
            meta whole 1
            printf '%s' "$c" >"$O"
            return
        fi
        sha_of "$p"; meta sha256 "$SHA"
        ((off > n || lim == 0)) && return
        printf -v out '%s\n' "${L[@]:off-1:lim}"
        # The selection ends with the file's last line, which has no newline.
        ((off - 1 + lim >= n)) && [ "${c: -1}" != $'\n' ] && out=${out%$'\n'}
        printf '%s' "${out:0:max}" >"$O"
        return
    fi
    meta size "$(stat -L -c %s -- "$p")"
    sha_of "$p"; meta sha256 "$SHA"
    if is_binary "$p"; then meta binary 1; return; fi
    meta binary 0
    meta total_lines "$(grep -ac '' -- "$p")"   # -a: a NUL byte is not a line end
    if [ "$off" = 1 ]; then
        head -n "$lim" -- "$p" | head -c "$max" >"$O"
    else
        tail -n +"$off" -- "$p" | head -n "$lim" | head -c "$max" >"$O"
    fi
}

op_get() { # path max_bytes
    local shown p max size
    shown=${A[0]:-}; resolve "$shown"; p=$RP; max=${A[1]:-}
    need_file "$p" "$shown" || return
    size=$(stat -L -c %s -- "$p")
    if [ "$size" -gt "$max" ]; then fail efbig "file is too large to edit ($size bytes)"; return; fi
    meta size "$size"
    sha_of "$p"; meta sha256 "$SHA"
    if is_binary "$p"; then meta binary 1; fi
    cat -- "$p" >"$O"
}

op_write() { # path expected_sha256(empty: any) content
    local shown p dir base tmp err
    shown=${A[0]:-}; resolve "$shown"; p=$RP
    if [ -d "$p" ]; then fail eisdir "is a directory, not a file: $shown"; return; fi
    dir=$(dirname -- "$p"); base=$(basename -- "$p")
    if ! err=$(mkdir -p -- "$dir" 2>&1); then fail eacces "cannot create parent directories of $shown: ${err##*: }"; return; fi
    tmp="$dir/.$base.chat2sbx-tmp.$$.$RANDOM"
    if ! err=$( (argfile 3 "$tmp") 2>&1); then rm -f -- "$tmp" 2>/dev/null; fail eacces "cannot write $shown: ${err##*: }"; return; fi
    [ -e "$p" ] && chmod --reference="$p" -- "$tmp" 2>/dev/null
    if [ -n "${A[1]:-}" ]; then
        if [ -f "$p" ]; then sha_of "$p"; else SHA=none; fi
        if [ "$SHA" != "${A[1]}" ]; then
            rm -f -- "$tmp"; meta sha256 "$SHA"; fail estale "$shown changed: its sha256 is $SHA, not ${A[1]}"; return
        fi
    fi
    if ! err=$(mv -f -- "$tmp" "$p" 2>&1); then rm -f -- "$tmp" 2>/dev/null; fail eacces "cannot write $shown: ${err##*: }"; return; fi
    meta bytes "$(stat -c %s -- "$p")"
}

op_search() { # pattern path glob max regex(0/1) hidden(0/1)
    local pat shown p glob max rc errf regex hidden
    pat=${A[0]:-}; shown=${A[1]:-}; glob=${A[2]:-}; max=${A[3]:-}; regex=${A[4]:-0}; hidden=${A[5]:-0}
    if [ -z "$shown" ]; then p=.; else resolve "$shown"; p=$RP; fi
    cd -- "$WS" 2>/dev/null || cd -- "$HOME" || true
    # Inside the workspace, search a relative path so the results are workspace-relative.
    case $p in
        "$WS") p=. ;;
        "$WS"/*) p=${p#"$WS"/} ;;
        "$WS_REAL") [ -n "$WS_REAL" ] && p=. ;;
        "$WS_REAL"/*) [ -n "$WS_REAL" ] && p=${p#"$WS_REAL"/} ;;
    esac
    if [ ! -e "$p" ]; then fail enoent "no such file or directory: ${shown:-.}"; return; fi
    if [ ! -r "$p" ]; then fail eacces "permission denied: ${shown:-.}"; return; fi
    errf="$RUN/$ID.err"
    if [ "$HAVE_RG" = 1 ]; then
        meta engine rg
        local g=()
        [ -n "$glob" ] && g=(-g "$glob")
        [ "$regex" = 1 ] || g+=(--fixed-strings)
        [ "$hidden" = 1 ] && g+=(--hidden)
        timeout 50 rg --no-config --no-ignore -g '!.git' --null --line-number --no-heading \
            --with-filename --color never "${g[@]}" -e "$pat" -- "$p" 2>"$errf" | cut -b 1-2000 | head -n $((max + 1)) >"$O"
        rc=${PIPESTATUS[0]}
    else
        meta engine grep
        local g=()
        [ -n "$glob" ] && g=("--include=$glob")
        if [ "$regex" = 1 ]; then g+=(-E); else g+=(-F); fi
        [ "$hidden" = 1 ] || g+=("--exclude=.*" "--exclude-dir=.?*")
        timeout 50 grep -rnHIZ --exclude-dir=.git "${g[@]}" -e "$pat" -- "$p" 2>"$errf" | cut -b 1-2000 | head -n $((max + 1)) >"$O"
        rc=${PIPESTATUS[0]}
    fi
    if [ "$rc" = 124 ]; then meta timed_out 1; fi
    if [ "$rc" -ge 2 ] && [ "$rc" != 124 ] && [ "$rc" -lt 128 ] && [ ! -s "$O" ]; then
        fail einval "search failed: $(head -c 500 "$errf")"
    fi
    rm -f "$errf"
}

op_list() { # path depth max
    local shown p depth max
    shown=${A[0]:-}; resolve "$shown"; p=$RP; depth=${A[1]:-}; max=${A[2]:-}
    if [ ! -e "$p" ]; then fail enoent "no such directory: ${shown:-.}"; return; fi
    if [ ! -d "$p" ]; then fail enotdir "not a directory: ${shown:-.}"; return; fi
    if [ ! -r "$p" ] || [ ! -x "$p" ]; then fail eacces "permission denied: ${shown:-.}"; return; fi
    (cd -- "$p" && find . -mindepth 1 -maxdepth "$depth" -name .git -prune -o -printf '%y\t%s\t%P\0' 2>/dev/null) |
        sort -z | head -z -n $((max + 1)) >"$O"
}

# ---- git: review and export of the workspace's changes (show_changes, export_changes) ----------------
# Every git call reads only, except objects written for the temporary index (git add) and the private
# ref refs/chat2sbx/export that a bundle needs; the sandbox's index, working tree and HEAD stay as they are.
EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904
G() { timeout 50 git --no-optional-locks -c core.quotepath=off -c core.hooksPath=/dev/null -c gc.auto=0 "$@"; }

# The commit checked out when the sandbox's first helper started: what "since the sandbox started" means.
# "none" when the workspace was not a repository with a commit then (everything counts as new).
record_git_base() {
    [ -e "$STATE/git-base" ] && return 0
    local b=none
    if command -v git >/dev/null 2>&1 && [ -d "$WS" ]; then
        b=$(cd -- "$WS" && G rev-parse --verify -q HEAD 2>/dev/null) || b=none
        [ -n "$b" ] || b=none
    fi
    printf '%s\n' "$b" >"$STATE/git-base.tmp" && mv -f "$STATE/git-base.tmp" "$STATE/git-base"
}

# Sets GBASE (the base commit, or the empty tree when there is none usable) and GHEAD ("" when unborn);
# fails einval when the workspace is not a git repository.
git_enter() {
    if ! command -v git >/dev/null 2>&1; then fail einval "git is not installed in this sandbox"; return 1; fi
    cd -- "$WS" 2>/dev/null || { fail enoent "the workspace folder does not exist"; return 1; }
    local top
    if ! top=$(G rev-parse --show-toplevel 2>/dev/null); then
        fail einval "the workspace is not a git repository (run git init there to track changes)"; return 1
    fi
    cd -- "$top" || { fail eio "cannot enter the repository"; return 1; }
    GHEAD=$(G rev-parse --verify -q HEAD 2>/dev/null) || GHEAD=
    GBASE=
    [ -f "$STATE/git-base" ] && read -r GBASE <"$STATE/git-base"
    if [ -z "$GBASE" ] || [ "$GBASE" = none ] || ! G cat-file -e "$GBASE^{commit}" 2>/dev/null; then
        GBASE=$EMPTY_TREE
    fi
    meta top_is_workspace "$([ "$top" -ef "$WS" ] && echo 1 || echo 0)"
    return 0
}

# A temporary index holding the whole working state (staged, unstaged, untracked; ignored files left
# out): the real index is copied, never written. Sets TIDX.
git_snapshot_index() {
    local gd
    gd=$(G rev-parse --git-dir) || return 1
    TIDX="$RUN/$ID.index"
    if [ -f "$gd/index" ]; then cp -- "$gd/index" "$TIDX" || return 1; else rm -f -- "$TIDX"; fi
    GIT_INDEX_FILE=$TIDX G add -A -- . >/dev/null 2>&1
}

section() { # name file: "<name> <bytes>\n<bytes>" appended to $O
    local n=0
    [ -s "$2" ] && n=$(stat -c %s -- "$2")
    printf '%s %s\n' "$1" "$n" >>"$O"
    [ "$n" -gt 0 ] && cat -- "$2" >>"$O"
    return 0
}

op_git_changes() { # pathspec include_diff(0/1) max_diff_bytes max_commits
    local spec=${A[0]:-} want=${A[1]:-1} max=${A[2]:-60000} maxc=${A[3]:-200} range t
    [[ $max =~ ^[0-9]+$ ]] || max=60000
    [[ $maxc =~ ^[0-9]+$ ]] || maxc=200
    git_enter || return
    local ps=(-- .)
    [ -n "$spec" ] && ps=(-- "$spec")
    t="$RUN/$ID"
    : >"$t.commits"
    if [ -n "$GHEAD" ]; then
        if [ "$GBASE" = "$EMPTY_TREE" ]; then range=$GHEAD; else range="$GBASE..$GHEAD"; fi
        G log -z --format='%H%x09%s' -n $((maxc + 1)) "$range" >"$t.commits" 2>/dev/null
    fi
    git_snapshot_index || { fail eio "cannot read the repository state"; return; }
    GIT_INDEX_FILE=$TIDX G diff-index --cached --no-renames -z --numstat "$GBASE" "${ps[@]}" >"$t.numstat" 2>/dev/null
    GIT_INDEX_FILE=$TIDX G diff-index --cached --no-renames -z --name-status "$GBASE" "${ps[@]}" >"$t.status" 2>/dev/null
    : >"$t.committed"
    [ -n "$GHEAD" ] && G diff-tree -r --no-renames -z --name-only "$GBASE" "$GHEAD" "${ps[@]}" >"$t.committed" 2>/dev/null
    if [ -n "$GHEAD" ]; then G diff-index --cached --no-renames -z --name-only HEAD "${ps[@]}" >"$t.staged" 2>/dev/null
    else G diff-index --cached --no-renames -z --name-only "$EMPTY_TREE" "${ps[@]}" >"$t.staged" 2>/dev/null; fi
    G diff-files --no-renames -z --name-only "${ps[@]}" >"$t.unstaged" 2>/dev/null
    G ls-files -z --others --exclude-standard "${ps[@]}" >"$t.untracked" 2>/dev/null
    : >"$t.diff"
    if [ "$want" = 1 ]; then
        GIT_INDEX_FILE=$TIDX G diff-index --cached -p --no-renames --no-color --no-ext-diff "$GBASE" "${ps[@]}" 2>/dev/null |
            head -c $((max + 1)) >"$t.diff"
    fi
    meta head "${GHEAD:-none}"
    meta base "$([ "$GBASE" = "$EMPTY_TREE" ] && echo none || echo "$GBASE")"
    local br
    br=$(G symbolic-ref -q --short HEAD 2>/dev/null) || br=
    br=${br//[$' ;\n=']/_}
    meta branch "${br:0:200}"
    section commits "$t.commits"; section numstat "$t.numstat"; section status "$t.status"
    section committed "$t.committed"; section staged "$t.staged"; section unstaged "$t.unstaged"
    section untracked "$t.untracked"; section patch "$t.diff"
    rm -f -- "$t".commits "$t".numstat "$t".status "$t".committed "$t".staged "$t".unstaged "$t".untracked "$t".diff "$TIDX"
}

op_git_bundle() { # max_bytes
    local max=${A[0]:-67108864} tree headtree tip b msg
    [[ $max =~ ^[0-9]+$ ]] || max=67108864
    git_enter || return
    git_snapshot_index || { fail eio "cannot read the repository state"; return; }
    tree=$(GIT_INDEX_FILE=$TIDX G write-tree) || { rm -f -- "$TIDX"; fail eio "git write-tree failed"; return; }
    rm -f -- "$TIDX"
    headtree=$EMPTY_TREE
    [ -n "$GHEAD" ] && headtree=$(G rev-parse "$GHEAD^{tree}")
    tip=$GHEAD
    if [ "$tree" != "$headtree" ]; then
        msg="chat2sbx: uncommitted changes of the sandbox (staged, unstaged and untracked files)"
        # Dated like HEAD, so the same state always gives the same commit.
        local d
        d=$([ -n "$GHEAD" ] && G log -1 --format=%cI "$GHEAD" || echo "2000-01-01T00:00:00Z")
        if [ -n "$GHEAD" ]; then
            tip=$(GIT_AUTHOR_NAME=chat2sbx GIT_AUTHOR_EMAIL=chat2sbx@localhost GIT_COMMITTER_NAME=chat2sbx \
                GIT_COMMITTER_EMAIL=chat2sbx@localhost GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d \
                G commit-tree "$tree" -p "$GHEAD" -m "$msg") || { fail eio "git commit-tree failed"; return; }
        else
            tip=$(GIT_AUTHOR_NAME=chat2sbx GIT_AUTHOR_EMAIL=chat2sbx@localhost GIT_COMMITTER_NAME=chat2sbx \
                GIT_COMMITTER_EMAIL=chat2sbx@localhost GIT_AUTHOR_DATE=$d GIT_COMMITTER_DATE=$d \
                G commit-tree "$tree" -m "$msg") || { fail eio "git commit-tree failed"; return; }
        fi
        meta uncommitted 1
    else
        meta uncommitted 0
    fi
    meta head "${GHEAD:-none}"
    meta base "$([ "$GBASE" = "$EMPTY_TREE" ] && echo none || echo "$GBASE")"
    if [ -z "$tip" ]; then meta nothing 1; return; fi
    meta tip "$tip"
    if [ "$tip" = "$GBASE" ]; then meta nothing 1; return; fi
    G update-ref refs/chat2sbx/export "$tip" || { fail eio "cannot record the export ref"; return; }
    b="$RUN/$ID.bundle"
    local excl=()
    if [ "$GBASE" != "$EMPTY_TREE" ] && G merge-base --is-ancestor "$GBASE" "$tip" 2>/dev/null; then excl=("^$GBASE"); fi
    if ! G bundle create "$b" refs/chat2sbx/export "${excl[@]}" >/dev/null 2>"$b.err"; then
        fail eio "git bundle failed: $(head -c 300 "$b.err")"; rm -f -- "$b" "$b.err"; return
    fi
    rm -f -- "$b.err"
    if [ "$(stat -c %s -- "$b")" -gt "$max" ]; then
        fail efbig "the changes are larger than $max bytes as a git bundle"; rm -f -- "$b"; return
    fi
    meta bytes "$(stat -c %s -- "$b")"
    cat -- "$b" >"$O"
    rm -f -- "$b"
}

# Several files changed at once: every check and every new content staged first, then the renames.
op_apply() { # count, then per file: action(w/d) path expected(empty: any, "none": must not exist, sha256) length; contents(last)
    local n i k act shown p exp len off dir base tmp err
    local -a P T ACT
    n=${A[0]:-}
    [[ $n =~ ^[0-9]+$ ]] && ((n > 0 && n <= 1000)) || { fail einval "bad file count"; return; }
    off=$((AOFF[4 * n + 1]))
    for ((i = 0; i < n; i++)); do
        k=$((4 * i + 1)); act=${A[k]:-}; shown=${A[k + 1]:-}; exp=${A[k + 2]:-}; len=${A[k + 3]:-0}
        resolve "$shown"; P[i]=$RP; ACT[i]=$act; p=$RP
        if [ "$exp" = none ]; then
            if [ -e "$p" ] || [ -L "$p" ]; then fail eexist "$shown already exists"; break; fi
        elif [ -n "$exp" ]; then
            need_file "$p" "$shown" || break
            sha_of "$p"
            [ "$SHA" = "$exp" ] || { fail estale "$shown changed while the patch was prepared; read it again"; break; }
        fi
        if [ "$act" = w ]; then
            dir=$(dirname -- "$p"); base=$(basename -- "$p")
            if ! err=$(mkdir -p -- "$dir" 2>&1); then fail eacces "cannot create parent directories of $shown: ${err##*: }"; break; fi
            tmp="$dir/.$base.chat2sbx-tmp.$$.$RANDOM"
            T[i]=$tmp
            if ! err=$( { tail -c +$((off + 1)) -- "$BIN" | head -c "$len" >"$tmp"; } 2>&1) ||
               [ "$(stat -c %s -- "$tmp" 2>/dev/null)" != "$len" ]; then
                fail eacces "cannot write $shown: ${err##*: }"; break
            fi
            [ -e "$p" ] && chmod --reference="$p" -- "$tmp" 2>/dev/null
        fi
        off=$((off + len))
    done
    if [ "$ST" = err ]; then
        for tmp in "${T[@]}"; do rm -f -- "$tmp"; done
        return
    fi
    for ((i = 0; i < n; i++)); do
        if [ "${ACT[i]}" = w ]; then
            mv -f -- "${T[i]}" "${P[i]}" || { fail eio "could not move the new ${A[4 * i + 2]} into place"; return; }
        else
            rm -f -- "${P[i]}" || { fail eio "could not delete ${A[4 * i + 2]}"; return; }
        fi
    done
    meta files "$n"
}

op_port_listening() { # port -> listening=0/1 (a TCP socket in LISTEN state on it, IPv4 or IPv6)
    local port=${A[0]:-} hex sl local rest st f found=0
    [[ $port =~ ^[0-9]{1,5}$ ]] && ((port >= 1 && port <= 65535)) || { fail einval "invalid port"; return; }
    printf -v hex '%04X' "$port"
    for f in /proc/net/tcp /proc/net/tcp6; do
        [ -r "$f" ] || continue
        while read -r sl local rest st rest; do
            [[ $st == 0A && ${local##*:} == "$hex" ]] && { found=1; break; }
        done <"$f"
        ((found)) && break
    done
    meta listening "$found"
}

# ---- stuck handlers and replaced helpers --------------------------------------------------------
# Every handler runs as a job of its own (set -m below): its process group id is in $RUN/<id>.pg
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
        [ -d "$d" ] && [ "$d" != "$RUN" ] || continue
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
        [ -d "$d" ] && [ "$d" != "$RUN" ] || continue
        tag=
        [ -f "$d/owner" ] && IFS= read -r tag <"$d/owner"
        [ "$tag" = "$OWNER" ] || continue
        owner=
        [ -f "$d/pid" ] && IFS= read -r owner <"$d/pid"
        [[ $owner =~ ^[0-9]+$ ]] && [ "$owner" != "$HELPER_PID" ] || continue
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
    rm -rf -- "$RUN/$t" "$RUN/$t".*
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

handle() { # id op encoding (raw: the body is the argument list itself; else its base64)
    ID=$1
    local op=$2
    O="$RUN/$ID.out"
    BIN="$RUN/$ID.bin"
    echo "$BASHPID" >"$RUN/$ID.pg"
    if [ -e "$RUN/cancel.$ID" ]; then   # cancelled before it ran: no answer, nothing left
        rm -f -- "$RUN/cancel.$ID" "$RUN/$ID".*
        exit 0
    fi
    MV=
    : >"$O"
    [ "$3" = raw ] || base64 -d <"$RUN/$ID.req" >"$BIN" 2>/dev/null
    parse_args
    ST=ok
    case $op in
        ping) op_ping ;;
        bash_start) op_bash_start ;;
        bash_read) op_bash_read ;;
        bash_stop) op_bash_stop ;;
        bash_status) op_bash_status ;;
        bash_input) op_bash_input ;;
        apply) op_apply ;;
        read) op_read ;;
        get) op_get ;;
        write) op_write ;;
        search) op_search ;;
        list) op_list ;;
        port_listening) op_port_listening ;;
        git_changes) op_git_changes ;;
        git_bundle) op_git_bundle ;;
        reap) op_reap ;;
        *) fail einval "unknown operation: $op" ;;
    esac
    # Done: a late cancel finds no group to kill (emptied, not removed: the writer removes the files).
    : >"$RUN/$ID.pg"
    respond "$ID" "$ST" "$O"
}

record_git_base
reap_predecessors
sweep_stale_runs
response_writer &
WRITER=$!
echo "$WRITER" >"$RUN/writer.pid"   # a helper killed outright leaves it behind: the next one's sweep kills it
# Each handler becomes a job with a process group of its own, which `cancel` can kill as a whole.
set -m

while IFS=' ' read -r rid rop rlen renc; do
    if ! [[ $rid =~ ^[0-9]+$ && $rlen =~ ^[0-9]+$ && $rop =~ ^[a-z_]+$ && ( -z $renc || $renc = raw ) ]]; then
        echo "chat2sbx-helper: malformed frame header" >&2
        exit 2
    fi
    if [ "$renc" = raw ]; then body="$RUN/$rid.bin"; else body="$RUN/$rid.req"; fi
    if ((rlen == 0)); then
        : >"$body"
    elif ((rlen <= 1024)); then
        # Small bodies (no NUL byte: raw ones never have one) without a fork; bash reads a pipe
        # byte by byte, so large ones go through head.
        IFS= read -r -N "$rlen" rbody
        printf '%s' "$rbody" >"$body"
    else
        head -c "$rlen" >"$body"
    fi
    if [ "$rop" = cancel ]; then
        # Handled here, at once and without a response: the body is "<len>\n<id>" (raw, or its base64).
        if [ "$renc" = raw ]; then IFS= read -r -d '' rbody <"$body"; else rbody=$(base64 -d <"$body" 2>/dev/null); fi
        rm -f -- "$body"
        cancel_request "${rbody#*$'\n'}"
        continue
    fi
    handle "$rid" "$rop" "$renc" </dev/null &
done
# stdin closed (the host is gone, or replaced this channel): handlers still running get 10 s to
# finish what they do (an apply cut short is worse than an answer nobody reads); what still runs
# then (a read stuck on a FIFO, a hung search) is killed, so no handler outlives its channel.
for ((i = 0; i < 200; i++)); do
    busy=0
    for p in $(jobs -rp); do [ "$p" = "$WRITER" ] || busy=1; done
    ((busy)) || break
    nap 0.05
done
for f in "$RUN"/*.pg; do [ -s "$f" ] && kill_recorded_group "$f"; done
for p in $(jobs -p); do [ "$p" = "$WRITER" ] || wait "$p"; done
printf 'quit quit\n' >&"$RESPFD"
wait "$WRITER"
