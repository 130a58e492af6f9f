#!/usr/bin/env bash
# Runs one command on the desktop most sbx users have: GNOME Shell on Wayland with the AppIndicator
# extension (a StatusNotifierItem host), headless, from Debian's packages (installers/deps.sh
# --test). The recipe of ../shared/reference/desktop-testing.md: a session bus of its own whose
# only activatable services are dconf and the shell's notification service (which the shell starts
# and which serves org.freedesktop.Notifications; no keyring prompt takes the pointer), a private system bus and
# no logind in a mount namespace of the shell's own, a fresh XDG_RUNTIME_DIR and HOME each time, and
# a two-file extension that turns on the shell's unsafe mode so that the test may take screenshots
# and run Eval. Usage: gnome-session.sh COMMAND [ARG...]
set -euo pipefail
need() { command -v "$1" >/dev/null 2>&1 || { echo "gnome-session: $1 is missing (installers/deps.sh --test installs it)" >&2; exit 1; }; }
for p in gnome-shell dbus-daemon gdbus gsettings unshare; do need "$p"; done
[[ -d /usr/share/gnome-shell/extensions/ubuntu-appindicators@ubuntu.com ]] ||
  { echo "gnome-session: the AppIndicator extension is missing (gnome-shell-extension-appindicator)" >&2; exit 1; }

work=$(mktemp -d /tmp/chat2sbx-gnome.XXXXXX)
shell_pid="" bus_pid=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [[ -n "$shell_pid" ]]; then
    kill "$shell_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$shell_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  if [[ -s "$work/system-bus.pid" ]]; then kill "$(cat "$work/system-bus.pid")" 2>/dev/null || true; fi
  if [[ -n "$bus_pid" ]]; then kill "$bus_pid" 2>/dev/null || true; fi
  if [[ -n "${CHAT2SBX_GNOME_LOG:-}" ]]; then cp "$work/shell.log" "$CHAT2SBX_GNOME_LOG" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -m 700 "$work/runtime" "$work/home" "$work/services"
cp /usr/share/dbus-1/services/ca.desrt.dconf.service "$work/services/"
cp /usr/share/dbus-1/services/org.gnome.Shell.Notifications.service "$work/services/"
export XDG_RUNTIME_DIR="$work/runtime" HOME="$work/home"
unset DISPLAY WAYLAND_DISPLAY
cat >"$work/session.conf" <<CONF
<busconfig><type>session</type><listen>unix:tmpdir=/tmp</listen><servicedir>$work/services</servicedir>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
CONF
bus=$(dbus-daemon --config-file="$work/session.conf" --fork --print-address=1 --print-pid=1)
DBUS_SESSION_BUS_ADDRESS=$(sed -n 1p <<<"$bus")
export DBUS_SESSION_BUS_ADDRESS
bus_pid=$(sed -n 2p <<<"$bus")

# chat2sbx as the package installs it for the desktop: its entry and icon, by which the shell
# names and draws its window (the app id is the entry's name).
mkdir -p "$HOME/.local/share/applications" "$HOME/.local/share/icons/hicolor/scalable/apps"
source_dir=$(cd "$(dirname "$0")/../.." && pwd)
# TryExec and Exec name the binary under test: an entry whose TryExec is not on PATH is hidden.
binary=${CHAT2SBX_BINARY:-chat2sbx}
sed -e "s|^TryExec=.*|TryExec=$binary|" -e "s|^Exec=chat2sbx|Exec=$binary|" \
  "$source_dir/resources/chat2sbx.desktop" >"$HOME/.local/share/applications/chat2sbx.desktop"
cp "$source_dir/resources/icons/chat2sbx.svg" "$HOME/.local/share/icons/hicolor/scalable/apps/"

unsafe="$HOME/.local/share/gnome-shell/extensions/unsafe-mode@chat2sbx.test"
mkdir -p "$unsafe"
printf '%s\n' '{"uuid": "unsafe-mode@chat2sbx.test", "name": "Unsafe mode for tests", "description": "Lets the test take screenshots and run Eval.", "shell-version": ["43", "44", "45", "46", "47", "48"]}' >"$unsafe/metadata.json"
# GNOME 45 and newer load extensions as ES modules; 43 and 44 call init().
shell_major=$(gnome-shell --version | sed -n 's/^GNOME Shell \([0-9]*\).*/\1/p')
if ((${shell_major:-0} >= 45)); then
  printf '%s\n' "import {Extension} from 'resource:///org/gnome/shell/extensions/extension.js';" \
    'export default class UnsafeMode extends Extension { enable() { global.context.unsafe_mode = true; } disable() {} }' >"$unsafe/extension.js"
else
  printf '%s\n' 'function init() { return { enable() { global.context.unsafe_mode = true; }, disable() {} }; }' >"$unsafe/extension.js"
fi
gsettings set org.gnome.shell enabled-extensions "['ubuntu-appindicators@ubuntu.com', 'unsafe-mode@chat2sbx.test']"
gsettings set org.gnome.shell disable-user-extensions false
# The shell's own welcome tour and overview would cover the panel.
gsettings set org.gnome.shell welcome-dialog-last-shown-version '999' 2>/dev/null || true

as_root=()
[[ $(id -u) -eq 0 ]] || as_root=(-r)
# A /run of the shell's own: no /run/systemd (so no logind to fail on) and /run/dbus for its
# system bus, whatever the host (or a debootstrap root) has there.
unshare "${as_root[@]}" -m sh -c "mount -t tmpfs -o mode=755 chat2sbx-run /run && mkdir /run/dbus \
  && dbus-daemon --system --fork --print-pid=3 3>'$work/system-bus.pid' \
  && exec gnome-shell --headless --virtual-monitor 1280x800 --wayland --no-x11" >"$work/shell.log" 2>&1 &
shell_pid=$!

has_owner() { gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
                --method org.freedesktop.DBus.NameHasOwner "$1" 2>/dev/null | grep -q true; }
deadline=$((SECONDS + 60))
until has_owner org.kde.StatusNotifierWatcher && has_owner org.gnome.Shell.Screenshot && has_owner org.freedesktop.Notifications; do
  if ! kill -0 "$shell_pid" 2>/dev/null || ((SECONDS >= deadline)); then
    echo "gnome-session: GNOME Shell did not come up with the AppIndicator extension and its notification service; its log:" >&2
    tail -n 30 "$work/shell.log" >&2
    exit 1
  fi
  sleep 0.1
done
shell_eval() { gdbus call --session --dest org.gnome.Shell --object-path /org/gnome/Shell --method org.gnome.Shell.Eval "$1"; }
# The shell starts in the overview, with its startup animation; once that is over, the desktop,
# without the "unsafe mode" banner over the panel.
until shell_eval 'String(Main.layoutManager._startingUp)' | grep -q '"false"'; do
  if ((SECONDS >= deadline)); then echo "gnome-session: GNOME Shell did not finish starting" >&2; exit 1; fi
  sleep 0.1
done
shell_eval 'Main.overview.hide(); Main.messageTray.getSources().forEach(s => s.destroy()); true' >/dev/null

export WAYLAND_DISPLAY=wayland-0 QT_QPA_PLATFORM=wayland CHAT2SBX_GNOME_SESSION=1
set +e
"$@"
rc=$?
set -e
exit "$rc"
