#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-waits-for-device (issue 18): `start --device hci2` before hci2 exists waits for it (a USB
# dongle or a UART controller that appears late), sleeping on the kernel's device events, and goes
# on air by itself when the controller appears: hci3 on the same virtual air hears the golden bytes.
# Nobody powers hci2 here (no bluetoothd): beacon-tx gives it 5 s, then brings it up itself.
# With --device-timeout 2 and no controller, it exits 69 naming the controllers that exist.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

step "no hci7 within --device-timeout 2: exit 69"
rc=0
"$BEACON_TX" start --device hci7 --device-timeout 2 --config "$REPO/Config/kiosk.json" > "$E2E_OUT/t.out" 2> "$E2E_OUT/t.err" || rc=$?
cat "$E2E_OUT/t.err"
[ "$rc" = 69 ] || fail "exit $rc, want 69"
grep -q '^beacon-tx start: hci7 did not appear within 2 s (--device-timeout; controllers: hci0, hci1); nothing is on air$' "$E2E_OUT/t.err" ||
  fail "timeout message: $(tail -n 1 "$E2E_OUT/t.err")"

step "start --device hci2 before hci2 exists"
run_bg late "$BEACON_TX" start --device hci2 --device-timeout 60 --config "$REPO/Config/kiosk.json"
wait_until 10 _log_has "$E2E_OUT/late.log" 'waiting for hci2 to appear (controllers: hci0, hci1; up to 60 s, --device-timeout)' ||
  fail "no waiting note: $(tail -n 3 "$E2E_OUT/late.log")"
sleep 2
expect_idle late   # it sleeps: no CPU while waiting

step "hci2 and hci3 appear (a second btvirt); hci3 scans"
btvirt -l2 >> "$E2E_OUT/btvirt2.log" 2>&1 &
echo $! > "$E2E_OUT/.btvirt2.pid"
wait_until 10 test -e /sys/class/bluetooth/hci3 || fail "the second btvirt made no hci3"
appeared=$(date +%s.%N)
hciconfig hci3 up
scan_start hci3
wait_until 20 _log_has "$E2E_OUT/late.log" 'beacon-tx: press Ctrl-C' || fail "not on air after hci2 appeared: $(tail -n 4 "$E2E_OUT/late.log")"
expect_adv_data -s hci3 -a "$(bdaddr hci2)" -t 10 "$GOLDEN"
echo "TIMING adapter appeared -> heard: $(echo "$(date +%s.%N) - $appeared" | bc 2>/dev/null || echo '?') s"
grep -q 'beacon-tx: hci2 appeared after ' "$E2E_OUT/late.log" || fail "no 'appeared' note"
grep -q 'hci2 is down; bringing it up (HCIDEVUP)' "$E2E_OUT/late.log" || fail "hci2 was not brought up by beacon-tx"

step "SIGTERM: clean stop"
stop_bg late TERM
cat "$E2E_OUT/late.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM, want 0"
read -r pid < "$E2E_OUT/.btvirt2.pid"
kill -TERM "$pid" 2>/dev/null || true
