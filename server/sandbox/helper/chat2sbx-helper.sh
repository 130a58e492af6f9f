# chat2sbx in-sandbox helper. Started by the host through one long-lived `sbx exec -i`; speaks the
# framed protocol of server/sandbox/PROTOCOL.md on stdin/stdout. Needs bash, coreutils, util-linux
# (setsid, flock), grep and findutils; uses ripgrep for search when present.
# Arguments: <workspace mount path> <managed 0|1>
set -u
export LC_ALL=C
HELPER_VERSION=1
WS_REAL=${1:-}
MANAGED=${2:-0}
STATE="$HOME/.chat2sbx"
SESS="$STATE/sessions"
mkdir -p "$SESS" "$STATE/run" || exit 3
RUN=$(mktemp -d "$STATE/run/h.XXXXXX") || exit 3
LOCK="$RUN/lock"
: >"$LOCK"
trap 'rm -rf "$RUN"' EXIT
echo $$ >"$STATE/helper.pid"
HELPER_PID=$$
HAVE_RG=0
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

# The watcher: runs in its own session (setsid -f), outside the command's process group, so it can
# record the exit code and enforce timeout_ms. $1 session dir, $2 timeout in ms (0: none).
WATCHER='
d=$1; t=$2
echo $$ >"$d/watcher.pid"
IFS= read -r -d "" cwd <"$d/cwd"; cd -- "$cwd" || exit 1
while IFS= read -r -d "" kv; do export "$kv"; done <"$d/env"
IFS= read -r -d "" cmd <"$d/command"
in=/dev/null hp=
if [ -p "$d/stdin" ]; then
    # The holder keeps a writer open so the command sees EOF only when bash_input closes stdin.
    sleep infinity 3<>"$d/stdin" </dev/null >/dev/null 2>&1 &
    hp=$!
    echo "$hp" >"$d/stdin.holder"
    in=$d/stdin
fi
setsid bash -c "$cmd" <"$in" >>"$d/output" 2>&1 &
pid=$!
echo "$pid" >"$d/pgid.tmp" && mv -f "$d/pgid.tmp" "$d/pgid"
tp=
if [ "$t" -gt 0 ]; then
    s=$((t / 1000)).$(printf "%03d" $((t % 1000)))
    ( sp=; trap "kill \$sp 2>/dev/null; exit 0" TERM
      sleep "$s" & sp=$!; wait "$sp"
      echo timeout >"$d/timed_out"
      kill -TERM -- "-$pid" 2>/dev/null
      sleep 1.5 & sp=$!; wait "$sp"
      kill -KILL -- "-$pid" 2>/dev/null ) &
    tp=$!
fi
wait "$pid"; code=$?
[ -n "$tp" ] && kill "$tp" 2>/dev/null
[ -n "$hp" ] && kill "$hp" 2>/dev/null
[ -f "$d/timed_out" ] && code=124
echo "$code" >"$d/exit_code.tmp" && mv -f "$d/exit_code.tmp" "$d/exit_code"
'

b64field() { if [ -s "$1" ]; then base64 -w0 <"$1"; else printf -- '-'; fi; }

respond() { # id status datafile
    {
        flock 9
        printf '%s %s %s ' "$1" "$2" "${MV:--}"
        b64field "$3"
        printf '\n'
    } 9>>"$LOCK"
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
is_binary() { local x; IFS= read -r -d '' -n 8192 x <"$1" 2>/dev/null && ((${#x} < 8192)); }

# Sets SHA to the sha256 of file $1.
sha_of() { SHA=$(sha256sum <"$1"); SHA=${SHA%% *}; }

valid_session() { [[ $1 =~ ^bash_[0-9a-f]{24}$ ]]; }

session_state() { # dir -> SS="exited:<code>" / "running" / "lost" (builtins only: no fork)
    local d=$1 c= w=
    if [ -f "$d/exit_code" ]; then
        read -r c <"$d/exit_code"
        if [ -f "$d/timed_out" ]; then SS="timedout:$c"; else SS="exited:$c"; fi
    elif [ -f "$d/watcher.pid" ] && { read -r w <"$d/watcher.pid"; ! kill -0 "$w" 2>/dev/null; } && [ ! -f "$d/exit_code" ]; then
        SS=lost
    else
        SS=running
    fi
}

op_ping() { meta pong 1; meta version "$HELPER_VERSION"; meta pid "$HELPER_PID"; meta rg "$HAVE_RG"; }

op_bash_start() { # id cwd timeout_ms command stdin(0/1) env(NUL separated NAME=VALUE, last)
    local sid cwd d t
    sid=${A[0]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    resolve "${A[1]:-}"; cwd=$RP
    t=${A[2]:-}
    [[ $t =~ ^[0-9]+$ ]] || t=0
    if [ ! -d "$cwd" ]; then fail enoent "working directory does not exist: ${A[1]:-}"; return; fi
    d=$SESS/$sid
    if [ -e "$d" ]; then meta existed 1; return; fi
    mkdir -p "$d.tmp" || { fail eio "cannot create session directory"; return; }
    printf '%s' "${A[3]:-}" >"$d.tmp/command"
    argfile 6 "$d.tmp/env"
    if [ "${A[4]:-0}" = 1 ] && ! mkfifo -m 600 "$d.tmp/stdin"; then
        rm -rf -- "$d.tmp"; fail eio "cannot create the stdin pipe"; return
    fi
    printf '%s' "$cwd" >"$d.tmp/cwd"
    : >"$d.tmp/output"
    if [ -n "${EPOCHREALTIME:-}" ]; then local us=${EPOCHREALTIME/[.,]/}; echo "${us:0:${#us}-3}" >"$d.tmp/started"
    else date +%s%3N >"$d.tmp/started"; fi
    mv "$d.tmp" "$d" || { fail eio "cannot create session directory"; return; }
    setsid -f bash -c "$WATCHER" chat2sbx-watch "$d" "$t" </dev/null >/dev/null 2>&1
    local i
    for ((i = 0; i < 500; i++)); do [ -f "$d/pgid" ] && break; nap 0.001; done
    # A quick command is usually done a moment later: the first snapshot then sees its exit.
    for ((i = 0; i < 20; i++)); do [ -f "$d/exit_code" ] && break; nap 0.001; done
    meta started 1
}

op_bash_read() { # id offset max
    local sid off max d st
    sid=${A[0]:-}; off=${A[1]:-}; max=${A[2]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    [[ $off =~ ^[0-9]+$ ]] || off=0
    [[ $max =~ ^[0-9]+$ ]] || max=60000
    d=$SESS/$sid
    [ -d "$d" ] || { fail enoent "no such session in this sandbox"; return; }
    session_state "$d"; st=$SS   # before reading, so an exit seen here means all output is in the file
    tail -c +$((off + 1)) -- "$d/output" 2>/dev/null | head -c "$max" >"$O"
    meta size "$(stat -c %s -- "$d/output" 2>/dev/null || echo 0)"
    meta state "$st"
    [ -f "$d/timed_out" ] && meta timed_out 1
    return 0
}

op_bash_stop() { # id
    local sid d pg i st
    sid=${A[0]:-}
    valid_session "$sid" || { fail einval "bad session id"; return; }
    d=$SESS/$sid
    [ -d "$d" ] || { fail enoent "no such session in this sandbox"; return; }
    for ((i = 0; i < 100; i++)); do [ -f "$d/pgid" ] || [ -f "$d/exit_code" ] && break; nap 0.01; done
    if [ ! -f "$d/exit_code" ] && [ -f "$d/pgid" ]; then
        read -r pg <"$d/pgid"
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
    d=$SESS/$sid
    [ -d "$d" ] || { fail enoent "no such session in this sandbox"; return; }
    session_state "$d"
    [ "$SS" = running ] || { fail einval "the command has already exited"; return; }
    [ -p "$d/stdin" ] || { fail einval "the command was started without stdin: true"; return; }
    [ -f "$d/stdin.closed" ] && { fail einval "stdin of this command is already closed"; return; }
    if [ "${ALEN[2]:-0}" -gt 0 ]; then
        tmp="$RUN/$ID.in"
        argfile 3 "$tmp"
        # Opened read-write, the pipe never blocks the open; a command that does not read blocks the write.
        timeout 10 cat -- "$tmp" 1<>"$d/stdin"; rc=$?
        rm -f -- "$tmp"
        if [ "$rc" != 0 ]; then fail eio "the command did not read its input within 10 s"; return; fi
    fi
    meta written "${ALEN[2]:-0}"
    if [ "${A[1]:-0}" = 1 ]; then
        : >"$d/stdin.closed"
        if [ -f "$d/stdin.holder" ]; then read -r hp <"$d/stdin.holder"; kill "$hp" 2>/dev/null; fi
        meta closed 1
    fi
}

op_bash_status() { # id...
    local i sid
    for ((i = 1; i <= ${#A[@]}; i++)); do
        sid=${A[i - 1]}
        valid_session "$sid" || continue
        if [ -d "$SESS/$sid" ]; then session_state "$SESS/$sid"; meta "$sid" "$SS"; else meta "$sid" missing; fi
    done
}

op_read() { # path line_offset(1-based) line_limit max_bytes
    local shown p off lim max
    shown=${A[0]:-}; resolve "$shown"; p=$RP; off=${A[1]:-}; lim=${A[2]:-}; max=${A[3]:-}
    need_file "$p" "$shown" || return
    meta size "$(stat -L -c %s -- "$p")"
    sha_of "$p"; meta sha256 "$SHA"
    if is_binary "$p"; then meta binary 1; return; fi
    meta binary 0
    meta total_lines "$(grep -c '' -- "$p")"
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

handle() {
    ID=$1
    local op=$2 req=$3
    O="$RUN/$ID.out"
    BIN="$RUN/$ID.bin"
    MV=
    : >"$O"
    base64 -d <"$req" >"$BIN" 2>/dev/null
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
        *) fail einval "unknown operation: $op" ;;
    esac
    respond "$ID" "$ST" "$O"
    rm -f "$req" "$BIN" "$O"
}

while IFS=' ' read -r rid rop rlen; do
    if ! [[ $rid =~ ^[0-9]+$ && $rlen =~ ^[0-9]+$ && $rop =~ ^[a-z_]+$ ]]; then
        echo "chat2sbx-helper: malformed frame header" >&2
        exit 2
    fi
    if ((rlen <= 1024)); then
        # Small bodies (base64 text, no NUL) without a fork; bash reads a pipe byte by byte, so
        # large ones go through head.
        IFS= read -r -N "$rlen" rbody
        printf '%s' "$rbody" >"$RUN/$rid.req"
    else
        head -c "$rlen" >"$RUN/$rid.req"
    fi
    handle "$rid" "$rop" "$RUN/$rid.req" </dev/null &
done
wait
