#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-doctor-kernel-instance (issue 32): on the single-instance controller bluetoothd manages
# (RootCanal legacy-only, like a Raspberry Pi's), with a kernel advertising instance (`btmgmt
# add-adv 1`), doctor shows bluetoothd running, WARN kernel-instances naming instance 1 and its
# possible owners, and what --share auto would do (share: our beacons become kernel instances).
# Before the instance exists --share auto would not share. A foreground start --share auto then
# does what doctor said (shares) and the receiver on hci1 hears the beacon.
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx

step "no kernel instance yet"
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-none.txt" 2>&1 || fail "doctor exited $?"
cat "$E2E_OUT/doctor-none.txt"
grep -q '^OK    bluetoothd  *-  *bluetoothd runs (pid [0-9]*)' "$E2E_OUT/doctor-none.txt" || fail "bluetoothd not seen"
grep -q '^OK    adapter  *hci0  .*legacy adv yes, extended adv no$' "$E2E_OUT/doctor-none.txt" || fail "not a legacy-only adapter"
grep -q '^OK    share-auto  *hci0  --share auto would not share: no kernel instances to share with' "$E2E_OUT/doctor-none.txt" || fail "share-auto without instances"

step "btmgmt add-adv 1"
rc_kernel_adv 1
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2>&1 || fail "doctor exited $?"
cat "$E2E_OUT/doctor.txt"
grep -q '^WARN  kernel-instances  *hci0  kernel instances 1 in use (of [0-9]*); owners: bluetoothd' "$E2E_OUT/doctor.txt" || fail "no WARN kernel-instances naming instance 1"
grep -q '^OK    share-auto  *hci0  --share auto would share' "$E2E_OUT/doctor.txt" || fail "share-auto does not say it would share"
"$BEACON_TX" doctor --device hci0 --json > "$E2E_OUT/doctor.json" || fail "doctor --json exited $?"

step "start --share auto does what doctor said"
kiosk_start kiosk --config "$REPO/Config/kiosk.json"
grep -E 'sharing it|as kernel advertising instance' "$E2E_OUT/kiosk.log" || fail "not shared: $(tail -n 5 "$E2E_OUT/kiosk.log")"
t0=$EPOCHREALTIME
wait_until 30 _rc_heard_after "$t0" || fail "the beacon was not heard on hci1"
stop_bg kiosk TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"

# The kernel keeps MGMT instances across the `hciconfig reset` between scenarios of one RootCanal
# start: remove instance 1, or the next legacy-only scenario finds it (rc-legacy-only then shares).
out=$(btmgmt_cmd 0 rm-adv 1)
[[ $out == *"removed"* || $out == *"Removed"* ]] || echo "btmgmt rm-adv 1: $out"
