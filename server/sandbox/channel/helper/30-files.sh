# ---- files: paths, read, get, write, search, list and apply --------------------------------------

# Sets RP to the path $1 resolves to (a variable, not output: no command-substitution fork).
resolve() {
    RP=$1
    # shellcheck disable=SC2088  # '~/' is the literal prefix an agent wrote, expanded to $HOME here
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

op_read() { # path line_offset(1-based) line_limit max_bytes
    local shown p off lim max
    shown=${A[0]:-}; resolve "$shown"; p=$RP; off=${A[1]:-}; lim=${A[2]:-}; max=${A[3]:-}
    need_file "$p" "$shown" || return
    local c='' n out
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

# Several files changed at once: every check and every new content staged first, then the renames.
op_apply() { # count, then per file: action(w/d) path expected(empty: any, "none": must not exist, sha256) length; contents(last)
    local n i k act shown p exp len off dir base tmp err
    local -a P T ACT
    n=${A[0]:-}
    if ! [[ $n =~ ^[0-9]+$ ]] || ! ((n > 0 && n <= 1000)); then fail einval "bad file count"; return; fi
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
