#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 300
# rc-share (issue 23): the sharing mode on the single-instance controller bluetoothd manages. With a
# kernel instance already there (`btmgmt add-adv 1`), `start --share auto` makes our two beacons
# kernel instances (MGMT on the control channel) instead of taking the one legacy instance: the
# independent receiver on hci1 hears the kernel's instance and both beacons within the kernel's
# rotation, our iBeacon bytes exactly as raw mode sends them. SIGHUP with a changed minor re-adds
# that instance; another program's `btmgmt rm-adv` of ours is undone; the stop removes our instances
# only, and the kernel's instance stays on air. A `btmon -w` capture of our own, from before the
# start to after the stop, passes `verify` (share mode: our MGMT commands against the share plan, the
# kernel's HCI data byte for byte ours, Remove Advertising at the stop, nothing of ours after it),
# and fails with a wrong major.
. "$(dirname "$0")/rc.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
cat > "$E2E_OUT/share.json" <<JSON
{ "share": "auto", "rotation": 1000, "beacons": [
  { "uuid": "$RC_UUID", "major": 1, "minor": 1 }, { "uuid": "$RC_UUID", "major": 1, "minor": 2 } ] }
JSON
run_bg sbtmon btmon -w "$E2E_OUT/share.snoop"
wait_until 5 test -s "$E2E_OUT/share.snoop" || fail "btmon -w wrote no capture header"
kiosk_start kiosk --config "$E2E_OUT/share.json" --verbose
grep -E 'sharing it|as kernel advertising instances' "$E2E_OUT/kiosk.log" || fail "not shared: $(tail -n 5 "$E2E_OUT/kiosk.log")"
_sleep 2
t0=$EPOCHREALTIME; _sleep 12; t1=$EPOCHREALTIME
onair_log --since "$t0" --until "$t1" --any-addr "$(rc_ktag 1)" | tee "$E2E_OUT/onair.txt"
for b in 1.1 1.2; do
  onair_rate "$b" "$E2E_OUT/onair.txt"
  echo "RATE beacon $b: $ONAIR_RATE reports/s"
  at_least "$ONAIR_RATE" 0.3 "beacon $b heard in the kernel's rotation"
done
rc_krate 1 "$E2E_OUT/onair.txt"
echo "RATE kernel instance 1: $ONAIR_RATE reports/s"
at_least "$ONAIR_RATE" 0.3 "the kernel's instance heard in its rotation"
# Each one is back within a rotation: 3 instances (ours 1 s each, the kernel's 2 s) = 4 s, plus slack.
while read -r l; do
  [[ $l == beacon* ]] || continue
  g=${l##*max_gap_s=}; g=${g%% *}
  between "$g" 0 6 "largest gap of ${l%% addr=*}"
done < "$E2E_OUT/onair.txt"
# The bytes on air are ours exactly: every report carrying our UUID is one of the two raw-mode payloads.
want1=$(ibeacon_data 1 1); want2=$(ibeacon_data 1 2)
while read -r l; do
  [[ $l == *e2c56db5dffb48d2b060d0f5a71096e0* ]] || continue
  d=${l##*data=}
  [ "$d" = "$want1" ] || [ "$d" = "$want2" ] || fail "our beacon on air with other bytes: $d"
done < "$E2E_OUT/scan-hci1.txt"
echo "our reports' data: exactly $want1 / $want2"
# What the kernel sent for us (btmon): the interval and the address.
grep -m 3 -A 3 'LE Set Advertising Parameters' "$E2E_OUT/btmon.txt" | sed 's/^/BTMON /' || true
# Reload: minor 2 becomes 3 on the same instance.
sed -i 's/"minor": 2/"minor": 3/' "$E2E_OUT/share.json"
kill -HUP "$KIOSK_PID"
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'reloaded' || fail "no reload: $(tail -n 3 "$E2E_OUT/kiosk.log")"
grep 'reloaded' "$E2E_OUT/kiosk.log"
t2=$EPOCHREALTIME
wait_until 12 onair_heard "$t2" 1.3 || fail "minor 3 not heard after the reload"
# Another program removes one of ours: it is added again.
inst=$(sed -n 's/.*as kernel advertising instances \([0-9]*\),.*/\1/p' "$E2E_OUT/kiosk.log" | head -n 1)
[ -n "$inst" ] || fail "no instance number in the log"
echo "btmgmt rm-adv $inst: $(btmgmt_cmd 0 rm-adv "$inst")"
wait_until 10 _log_has "$E2E_OUT/kiosk.log" "re-added" || fail "not re-added: $(tail -n 3 "$E2E_OUT/kiosk.log")"
t3=$EPOCHREALTIME
wait_until 12 onair_heard "$t3" 1.1 || fail "minor 1 not heard after the re-add"
kiosk_expect_alive kiosk
stop_bg kiosk TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC"
grep 'removed our kernel advertising instances' "$E2E_OUT/kiosk.log" || fail "no clean stop: $(tail -n 3 "$E2E_OUT/kiosk.log")"
t4=$EPOCHREALTIME; _sleep 6; t5=$EPOCHREALTIME
onair_log --since "$t4" --until "$t5" --any-addr "$(rc_ktag 1)" | tee "$E2E_OUT/onair-after.txt"
grep -q '^beacon 1\.' "$E2E_OUT/onair-after.txt" && fail "our beacons still on air after stop"
rc_krate 1 "$E2E_OUT/onair-after.txt"
echo "RATE kernel instance 1 after stop: $ONAIR_RATE reports/s"
at_least "$ONAIR_RATE" 1 "the kernel's instance after our stop"
_sleep 0.3
stop_bg sbtmon INT
# verify on the live capture, with the config as it ended (minor 3 after the reload).
src=0
"$BEACON_TX" verify "$E2E_OUT/share.snoop" --config "$E2E_OUT/share.json" > "$E2E_OUT/verify.out" 2> "$E2E_OUT/verify.err" || src=$?
cat "$E2E_OUT/verify.out" "$E2E_OUT/verify.err"
[ "$src" = 0 ] || fail "verify of the share-mode capture exited $src: $(tail -n 1 "$E2E_OUT/verify.out")"
for want in "mode: shared through the kernel" "kernel advertising instance $inst" "replaced instance" \
            "from btmgmt" "at the end: removed by beacon-tx's stop plan" "PASS: 2 beacon(s) shared through the kernel as planned"; do
  _log_has "$E2E_OUT/verify.out" "$want" || fail "verify output has no '$want'"
done
"$BEACON_TX" verify "$E2E_OUT/share.snoop" --config "$E2E_OUT/share.json" --json > "$E2E_OUT/verify.json"
"${E2E_PY[@]}" -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["passed"] and d["share"]["method"] == "extended" and d["share"]["durationSeconds"] == 1, d
assert [b["found"]["minor"] for b in d["beacons"]] == [1, 3], d["beacons"]
for b in d["beacons"]:
    assert b["kernelWrites"] >= 1 and b["removedAt"] is not None and b["failures"] == [], b
print("verify json ok: instances", d["share"]["instances"], "kernel writes", [b["kernelWrites"] for b in d["beacons"]])
' "$E2E_OUT/verify.json"
# The same capture against a wrong major fails, naming the field.
src=0
"$BEACON_TX" verify "$E2E_OUT/share.snoop" --beacon "$RC_UUID:2:1" --beacon "$RC_UUID:1:3" --rotation 1000 \
  > "$E2E_OUT/verify-major.out" 2> "$E2E_OUT/verify-major.err" || src=$?
cat "$E2E_OUT/verify-major.err"
[ "$src" = 1 ] || fail "verify with major 2 exited $src"
_log_has "$E2E_OUT/verify-major.err" "iBeacon major 2 ≠ 1 (config ≠ capture)" || fail "verify with major 2: $(cat "$E2E_OUT/verify-major.err")"
