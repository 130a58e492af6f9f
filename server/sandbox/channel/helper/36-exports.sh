# ---- exports: a file or folder of the sandbox read out in parts (export_file) --------------------
# export_stat says what a path is; a folder is packed first (export_pack: a .tar.gz in
# ~/.chat2sbx/exports, removed by export_drop or by the next helper's start); export_part reads one
# part of a regular file at an offset, so the host never asks for more than a part at once.
EXPORTS="$STATE/exports"

op_export_stat() { # path
    local shown=${A[0]:-}
    resolve "$shown"
    if [ ! -e "$RP" ]; then fail enoent "no such file or directory: $shown"; return; fi
    if [ ! -r "$RP" ]; then fail eacces "permission denied: $shown"; return; fi
    if [ -d "$RP" ]; then meta type dir; return; fi
    if [ ! -f "$RP" ]; then fail einval "not a regular file or folder: $shown"; return; fi
    meta type file
    meta size "$(stat -L -c %s -- "$RP")"
}

op_export_pack() { # path token: the folder as a .tar.gz, its size
    local shown=${A[0]:-} token=${A[1]:-} out err
    if ! [[ $token =~ ^[a-z0-9]{8,40}$ ]]; then fail einval "bad export token"; return; fi
    resolve "$shown"
    if [ ! -d "$RP" ]; then fail enotdir "not a folder: $shown"; return; fi
    mkdir -p "$EXPORTS" || { fail eio "cannot create $EXPORTS"; return; }
    out="$EXPORTS/$token.tar.gz"
    if ! err=$(tar -czf "$out" -C "$(dirname -- "$RP")" -- "$(basename -- "$RP")" 2>&1); then
        rm -f -- "$out"; fail eio "packing $shown failed: ${err:0:300}"; return
    fi
    meta path "$out"
    meta size "$(stat -c %s -- "$out")"
}

op_export_part() { # path offset length: the bytes of a regular file from offset
    local shown=${A[0]:-} off=${A[1]:-} len=${A[2]:-}
    if ! [[ $off =~ ^[0-9]{1,15}$ && $len =~ ^[0-9]{1,9}$ ]]; then fail einval "bad offset or length"; return; fi
    resolve "$shown"
    need_file "$RP" "$shown" || return
    meta size "$(stat -L -c %s -- "$RP")"
    tail -c +$((off + 1)) -- "$RP" | head -c "$len" >"$O"
}

op_export_drop() { # token
    local token=${A[0]:-}
    [[ $token =~ ^[a-z0-9]{8,40}$ ]] && rm -f -- "$EXPORTS/$token.tar.gz"
    return 0
}

sweep_stale_exports() {
    [ -d "$EXPORTS" ] || return 0
    find "$EXPORTS" -maxdepth 1 -type f -name '*.tar.gz' -mmin +15 -delete 2>/dev/null
    return 0
}
