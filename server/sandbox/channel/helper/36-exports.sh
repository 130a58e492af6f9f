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

op_export_pack() { # path token max: the folder as a .tar.gz of at most max bytes (efbig past it), its size
    local shown=${A[0]:-} token=${A[1]:-} max=${A[2]:-} out err size status
    if ! [[ $token =~ ^[a-z0-9]{8,40}$ ]]; then fail einval "bad export token"; return; fi
    if ! [[ $max =~ ^[0-9]{1,15}$ ]]; then fail einval "bad size limit"; return; fi
    resolve "$shown"
    if [ ! -d "$RP" ]; then fail enotdir "not a folder: $shown"; return; fi
    mkdir -p "$EXPORTS" || { fail eio "cannot create $EXPORTS"; return; }
    out="$EXPORTS/$token.tar.gz"
    # head stops reading one byte past the limit: tar then dies of SIGPIPE, nothing more is packed.
    # tar's complaints go with the request's own files ($RUN/<id>.*), which go whatever ends it.
    tar -czf - -C "$(dirname -- "$RP")" -- "$(basename -- "$RP")" 2>"$O.tar" | head -c $((max + 1)) >"$out"
    status=${PIPESTATUS[0]}
    err=$(head -c 300 -- "$O.tar" 2>/dev/null)
    rm -f -- "$O.tar"
    size=$(stat -c %s -- "$out" 2>/dev/null || echo 0)
    if ((size > max)); then
        rm -f -- "$out"; fail efbig "$shown packs to more than $max bytes"; return
    fi
    if ((status != 0)); then
        rm -f -- "$out"; fail eio "packing $shown failed: $err"; return
    fi
    meta path "$out"
    meta size "$size"
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
