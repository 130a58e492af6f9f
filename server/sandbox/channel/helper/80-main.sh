# ---- main: one handler per request, the read loop, and the end when stdin closes -----------------

op_ping() { meta pong 1; meta version "$HELPER_VERSION"; meta pid "$HELPER_PID"; meta rg "$HAVE_RG"; }

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
        upload_part) op_upload_part ;;
        upload_done) op_upload_done ;;
        upload_drop) op_upload_drop ;;
        export_stat) op_export_stat ;;
        export_pack) op_export_pack ;;
        export_part) op_export_part ;;
        export_drop) op_export_drop ;;
        read) op_read ;;
        get) op_get ;;
        write) op_write ;;
        search) op_search ;;
        list) op_list ;;
        port_listening) op_port_listening ;;
        git_changes) op_git_changes ;;
        git_bundle) op_git_bundle ;;
        git_save) op_git_save ;;
        git_put_back) op_git_put_back ;;
        git_seed) op_git_seed ;;
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
sweep_stale_uploads
sweep_stale_exports
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
# The end forks nothing but its last program: every helper of a host that stops ends at once,
# and a fork of this shell costs more than the rest of its end (the job lists go through a file,
# not $(...); rm takes the helper's place).
for ((i = 0; i < 200; i++)); do
    busy=0
    jobs -rp >"$RUN/jobs"
    mapfile -t running <"$RUN/jobs"
    for p in "${running[@]}"; do [ "$p" = "$WRITER" ] || busy=1; done
    ((busy)) || break
    nap 0.05
done
for f in "$RUN"/*.pg; do [ -s "$f" ] && kill_recorded_group "$f"; done
jobs -p >"$RUN/jobs"
mapfile -t running <"$RUN/jobs"
for p in "${running[@]}"; do [ "$p" = "$WRITER" ] || wait "$p"; done
printf 'quit quit\n' >&"$RESPFD"
wait "$WRITER"
trap - EXIT
exec rm -rf -- "$RUN"
