# ---- uploads: a file that arrives in parts (import_file streams a download into the VM) ----------
# The parts are appended to a hidden file beside the destination (the same file system, so the last
# step is a rename, never a copy) and the file appears under its name only when complete and
# checked. ~/.chat2sbx/uploads/<token> names the staged file while it grows; a host killed mid-way
# leaves it behind, and a helper that starts removes the staged files nobody wrote to for 15 min.
UPLOADS="$STATE/uploads"

# Sets UP (the staged file) and UM (its marker) for token $1 and destination $2, or fails.
upload_paths() {
    local dir base
    if ! [[ $1 =~ ^[a-z0-9]{8,40}$ ]]; then fail einval "bad upload token"; return 1; fi
    resolve "$2"
    if [ -d "$RP" ]; then fail eisdir "is a directory, not a file: $2"; return 1; fi
    dir=$(dirname -- "$RP"); base=$(basename -- "$RP")
    UP="$dir/.$base.chat2sbx-part.$1"
    UM="$UPLOADS/$1"
}

op_upload_part() { # token path offset content(last)
    local shown off have err
    shown=${A[1]:-}; off=${A[2]:-}
    upload_paths "${A[0]:-}" "$shown" || return
    if ! [[ $off =~ ^[0-9]{1,15}$ ]]; then fail einval "bad offset"; return; fi
    if ((off == 0)); then
        # The first part: the name must be free now (checked again at the end), nothing staged yet.
        if [ -e "$RP" ] || [ -L "$RP" ]; then fail eexist "$shown already exists"; return; fi
        if ! err=$(mkdir -p -- "$(dirname -- "$RP")" "$UPLOADS" 2>&1); then
            fail eacces "cannot create parent directories of $shown: ${err##*: }"; return
        fi
        if ! err=$( (set -o noclobber; : >"$UP") 2>&1); then fail eacces "cannot write $shown: ${err##*: }"; return; fi
    elif [ ! -f "$UP" ]; then
        fail enoent "the upload of $shown is gone (the sandbox restarted?)"; return
    fi
    printf '%s' "$UP" >"$UM"
    have=$(stat -c %s -- "$UP")
    if [ "$have" != "$off" ]; then meta size "$have"; fail estale "the upload of $shown holds $have bytes, not $off"; return; fi
    if ((${ALEN[3]:-0} > 0)) &&
        ! err=$( { tail -c +$((AOFF[3] + 1)) -- "$BIN" | head -c "${ALEN[3]}" >>"$UP"; } 2>&1); then
        fail eio "cannot write $shown: ${err##*: }"; return
    fi
    meta size "$(stat -c %s -- "$UP")"
}

op_upload_done() { # token path size sha256: the staged file becomes the destination, never over another
    local shown err
    shown=${A[1]:-}
    upload_paths "${A[0]:-}" "$shown" || return
    if [ ! -f "$UP" ]; then fail enoent "the upload of $shown is gone (the sandbox restarted?)"; return; fi
    if [ "$(stat -c %s -- "$UP")" != "${A[2]:-}" ]; then fail estale "the upload of $shown is incomplete"; return; fi
    sha_of "$UP"
    if [ "$SHA" != "${A[3]:-}" ]; then fail estale "the upload of $shown arrived damaged (sha256 $SHA)"; return; fi
    if [ -e "$RP" ] || [ -L "$RP" ]; then rm -f -- "$UP" "$UM"; fail eexist "$shown already exists"; return; fi
    # A hard link never replaces a file; where the file system has none, mv -n (checked after).
    if ln -- "$UP" "$RP" 2>/dev/null; then
        rm -f -- "$UP"
    elif ! err=$(mv -n -- "$UP" "$RP" 2>&1) || [ -e "$UP" ]; then
        rm -f -- "$UP" "$UM"
        if [ -e "$RP" ]; then fail eexist "$shown already exists"; else fail eio "cannot write $shown: ${err##*: }"; fi
        return
    fi
    rm -f -- "$UM"
    meta size "${A[2]}"
}

op_upload_drop() { # token path: an upload given up on leaves nothing
    upload_paths "${A[0]:-}" "${A[1]:-}" || return
    rm -f -- "$UP" "$UM"
}

sweep_stale_uploads() {
    local m p
    [ -d "$UPLOADS" ] || return 0
    while IFS= read -r -d '' m; do
        p=
        IFS= read -r -d '' p <"$m"
        case $p in */.*.chat2sbx-part.*) rm -f -- "$p" ;; esac
        rm -f -- "$m"
    done < <(find "$UPLOADS" -maxdepth 1 -type f -mmin +15 -print0 2>/dev/null)
}
