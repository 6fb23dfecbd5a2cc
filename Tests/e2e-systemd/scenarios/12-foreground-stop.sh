# SPDX-License-Identifier: Apache-2.0
# boot: main
# `beacon-tx stop --device hci0` beside a foreground kiosk started from a shell (not the
# unit): stop ends that session (SIGTERM; it exits 0 after its stop plan), says so, and
# nothing is heard afterwards.
. "$BED/lib.sh"

package_installed || package_install
systemctl stop beacon-tx.service
mapfile -t ids < <(config_ids "$KIOSK")
_gone() { ! kill -0 "$1" 2> /dev/null || [[ $(cat /proc/$1/stat 2> /dev/null) == *") Z "* ]]; }
rx_start hci1
/usr/bin/beacon-tx start --config "$KIOSK" > "$E2E_OUT/foreground.log" 2>&1 &
fg=$!
expect_heard 15 "${ids[@]}"
step "stop --device hci0 (foreground pid $fg)"
rc=0; out=$(timeout 30 /usr/bin/beacon-tx stop --device hci0 2>&1) || rc=$?
echo "stop: exit $rc: $out"
[ $rc = 0 ] || fail "beacon-tx stop --device hci0: exit $rc: $out"
[[ $out == *"$fg"* ]] || fail "beacon-tx stop does not report the session it stopped (pid $fg): $out"
wait_until 10 _gone "$fg" || { kill "$fg"; fail "the foreground kiosk still runs after stop: $(tail -n 3 "$E2E_OUT/foreground.log")"; }
frc=0; wait "$fg" || frc=$?
echo "foreground kiosk exit $frc:"; cat "$E2E_OUT/foreground.log"
[ $frc = 0 ] || fail "the foreground kiosk exited $frc, expected 0"
_sleep 1
expect_silent 3
