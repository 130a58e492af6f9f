#!/usr/bin/env bash
# Run by tst_tunnel under dbus-run-session: a throwaway Secret Service (gnome-keyring, its login keyring
# created and unlocked with a dummy password in the test's HOME). Prints the session bus address, then
# lives until the test closes stdin; the keyring daemon ends with the bus.
set -euo pipefail
printf 'chat2sbx-test' | gnome-keyring-daemon --daemonize --unlock --components=secrets >/dev/null
echo "DBUS_SESSION_BUS_ADDRESS=$DBUS_SESSION_BUS_ADDRESS"
cat >/dev/null
