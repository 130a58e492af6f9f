# ---- port probe: is a TCP port of the sandbox listening (sandbox_expose) -------------------------

op_port_listening() { # port -> listening=0/1 (a TCP socket in LISTEN state on it, IPv4 or IPv6)
    local port=${A[0]:-} hex laddr rest st f found=0
    if ! [[ $port =~ ^[0-9]{1,5}$ ]] || ! ((port >= 1 && port <= 65535)); then fail einval "invalid port"; return; fi
    printf -v hex '%04X' "$port"
    for f in /proc/net/tcp /proc/net/tcp6; do
        [ -r "$f" ] || continue
        while read -r _ laddr rest st rest; do
            [[ $st == 0A && ${laddr##*:} == "$hex" ]] && { found=1; break; }
        done <"$f"
        ((found)) && break
    done
    meta listening "$found"
}
