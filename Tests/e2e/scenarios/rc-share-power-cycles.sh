#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 420
# rc-share-power-cycles (issue 45): the Raspberry Pi's common path, power-cycled. On the legacy-only
# controller bluetoothd manages, with a kernel instance (`btmgmt add-adv 1`), a kiosk of three
# beacons that `--share auto` makes kernel instances; then `btmgmt power off; sleep 0.5; btmgmt
# power on` ten times, 4 s apart. After each cycle hci0 is still registered, the same process runs,
# beacon-tx re-adds its three instances (its note, one per cycle), and every beacon of ours is heard
# again within the kernel's rotation (4 instances, ~5 s) and some TCG slack: 10 s (the receiver's
# stamps: all three within 2.4 s, beacon-tx's re-add 0.3-0.8 s after the power on).
# The kernel log (dmesg) and btmon -M of the whole run are kept (btmon-mgmt.txt).
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
run_bg mon btmon -M
cat > "$E2E_OUT/share.json" <<JSON
{ "share": "auto", "rotation": 1000, "beacons": [
  { "uuid": "$RC_UUID", "major": 1, "minor": 1 }, { "uuid": "$RC_UUID", "major": 1, "minor": 2 },
  { "uuid": "$RC_UUID", "major": 1, "minor": 3 } ] }
JSON
kiosk_start k --config "$E2E_OUT/share.json" --device-timeout 20
grep -E 'as kernel advertising instances' "$E2E_OUT/k.log" || fail "not shared: $(tail -n 5 "$E2E_OUT/k.log")"
pid=$KIOSK_PID
_registered() { [ -e /sys/class/bluetooth/hci0 ]; }
worst=0
for i in $(seq 10); do
  btmgmt_cmd 0 power off > /dev/null
  _sleep 0.5
  btmgmt_cmd 0 power on > /dev/null
  t=$EPOCHREALTIME
  _sleep 1
  _registered || { dmesg | tail -n 20; fail "cycle $i: hci0 is gone from /sys/class/bluetooth"; }
  wait_until 10 onair_heard "$t" 1.1 1.2 1.3 || {
    dmesg | tail -n 20; tail -n 5 "$E2E_OUT/k.log"
    fail "cycle $i: not every beacon heard within 10 s of power on"
  }
  d=$(awk -v a="$t" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  echo "cycle $i: hci0 registered, every beacon heard within $d s"
  worst=$(awk -v a="$worst" -v b="$d" 'BEGIN { print (b > a) ? b : a }')
  kiosk_expect_alive k
  _sleep 2
done
echo "worst: $worst s"
n=$(grep -c 're-added 3 instance(s) on hci0 after: hci0 up again' "$E2E_OUT/k.log")
[ "$n" -ge 10 ] || fail "beacon-tx re-added its instances after $n of 10 power cycles"
[ "$KIOSK_PID" = "$pid" ] || fail "a different process"
dmesg | grep -iE 'hci0|bluetooth' | tail -n 15
stop_bg k TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
