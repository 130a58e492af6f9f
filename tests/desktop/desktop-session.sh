#!/usr/bin/env bash
# Runs one command on a desktop of its own: Xvfb (the display it picks itself), a private D-Bus
# session bus, openbox (a real window manager) and trayer (an XEmbed system tray), all installed by
# `installers/deps.sh --test`; each started in the background, waited for with a deadline, and
# stopped when the command ends. Usage: desktop-session.sh COMMAND [ARG...]
set -euo pipefail
need() { command -v "$1" >/dev/null 2>&1 || { echo "desktop-session: $1 is missing (installers/deps.sh --test installs it)" >&2; exit 1; }; }
for p in Xvfb dbus-daemon openbox trayer xdpyinfo xprop xwininfo; do need "$p"; done

work=$(mktemp -d /tmp/chat2sbx-desktop.XXXXXX)
pids=()
bus_pid=""
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  # Gone before the next session starts: an Xvfb still shutting down unlinks the socket of a new one
  # that took the same display number (openbox then "failed to open the display").
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  [[ -n "$bus_pid" ]] && kill "$bus_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

wait_for() {   # wait_for SECONDS DESCRIPTION COMMAND...
  local deadline=$((SECONDS + $1)) what=$2; shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then echo "desktop-session: $what did not come up" >&2; exit 1; fi
    sleep 0.1
  done
}

# -noreset: the server does not reset when its last client (xdpyinfo, below) leaves; a reset refused
# openbox's connection now and then ("Failed to open the display").
Xvfb -displayfd 3 -screen 0 1600x1000x24 -nolisten tcp -noreset 3>"$work/display" >"$work/xvfb.log" 2>&1 &
pids+=($!)
wait_for 20 "Xvfb" test -s "$work/display"
export DISPLAY=":$(head -n1 "$work/display")"
wait_for 20 "the X display $DISPLAY" xdpyinfo

bus=$(dbus-daemon --session --fork --print-address=1 --print-pid=1)
export DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p <<<"$bus")
bus_pid=$(sed -n 2p <<<"$bus")

openbox >"$work/openbox.log" 2>&1 &
pids+=($!)
wait_for 20 "openbox" sh -c 'xprop -root _NET_SUPPORTING_WM_CHECK | grep -q "window id"'
trayer --edge top --align right --widthtype request --height 28 >"$work/trayer.log" 2>&1 &
pids+=($!)
# trayer's panel window appears once it owns the tray selection (_NET_SYSTEM_TRAY_S0).
wait_for 20 "trayer" sh -c 'xwininfo -root -tree | grep -q "(\"panel\" \"trayer\")"'

export QT_QPA_PLATFORM=xcb
export CHAT2SBX_DESKTOP_SESSION=1
mkdir -p -m 700 "$work/xdg"
export XDG_RUNTIME_DIR="$work/xdg"
set +e
"$@"
rc=$?
set -e
exit "$rc"
