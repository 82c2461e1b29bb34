#!/bin/sh
# with-keyring.sh COMMAND... : run COMMAND inside a private D-Bus session with an unlocked
# gnome-keyring (Secret Service), so keychain tests use the real thing. Fresh XDG folders each
# run, so no keyring from an earlier run (with another password) is in the way.
# Without dbus-run-session or gnome-keyring-daemon it runs COMMAND as it is; keychain tests then
# fail with the console's own "no keychain" error, which says what to install.
set -e
if ! command -v dbus-run-session >/dev/null 2>&1 || ! command -v gnome-keyring-daemon >/dev/null 2>&1; then
  echo "with-keyring: dbus-run-session or gnome-keyring-daemon not installed; running without a Secret Service" >&2
  exec "$@"
fi
KR_DIR=$(mktemp -d)
export XDG_DATA_HOME="$KR_DIR/data" XDG_CACHE_HOME="$KR_DIR/cache" XDG_RUNTIME_DIR="$KR_DIR/run"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
rc=0
dbus-run-session -- sh -c '
  printf "%s" "dets-console-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  exec "$@"' sh "$@" || rc=$?
rm -rf "$KR_DIR"
exit $rc
