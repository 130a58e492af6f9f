# ---- frames: reading a request's arguments, writing its answer ---------------------------------
# Answers go through one writer process, the only one that writes to stdout, so lines never
# interleave and no lock program runs per answer. A handler leaves its line in $RUN/<id>.resp (for
# a large answer only the head, the base64 data stays in $RUN/<id>.b64) and sends "<id> s|l" on
# RESPFD (a pipe; writes of one short line are atomic). An answer without data (most, at 100 bytes
# or so) goes whole on RESPFD as "<id> i <status> <meta> -": no file made, read and removed.
exec {RESPFD}<> <(:)
respond() { # id status datafile
    local d=- kind=s line
    if [ ! -s "$3" ]; then
        printf -v line '%s i %s %s -' "$1" "$2" "${MV:--}"
        if ((${#line} <= 1024)); then
            printf '%s\n' "$line" >&"$RESPFD"
            return
        fi
    else
        # Under 64 KiB without a NUL byte (read reaches the end): the bytes as they are, counted, with
        # no program started; else one base64 line.
        if ! IFS= read -r -d '' -n 65536 d <"$3"; then
            printf '%s %s %s ~%s\n%s' "$1" "$2" "${MV:--}" "${#d}" "$d" >"$RUN/$1.resp"
            printf '%s s\n' "$1" >&"$RESPFD"
            return
        fi
        d=-
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
        if ! IFS=' ' read -r -t 5 rq kind line <&"$RESPFD"; then
            kill -0 "$HELPER_PID" 2>/dev/null && continue
            break
        fi
        [ "$kind" = quit ] && break
        [[ $rq =~ ^[0-9]+$ ]] || continue
        if [ "$kind" = i ]; then
            printf '%s %s\n' "$rq" "$line"
        else
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
