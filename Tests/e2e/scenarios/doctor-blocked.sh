#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-blocked (issue 32): hci0 soft-blocked by rfkill (`rfkill block`, as airplane mode or an image
# that ships blocked). doctor exits 1 with FAIL rfkill and the remedy; devices and status show the
# block; a start without a wait (--device-timeout 0) exits 69 naming it; the default choice (no
# --device) says it passed hci0 over for hci1. A start with --device-timeout 60 waits, with
# STATUS=waiting for hci0 (blocked by rfkill) on its notify socket and a stderr note, sleeping (no
# CPU), and comes on air by itself within seconds of `rfkill unblock`: hci1 hears the golden bytes.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx
command -v rfkill > /dev/null || fail "no rfkill command (Debian package rfkill; Tests/e2e/run installs it)"
idx=$(cat /sys/class/bluetooth/hci0/rfkill*/index) || fail "hci0 has no rfkill switch"
trap 'rfkill unblock "$idx" 2>/dev/null || true' EXIT

step "rfkill block hci0 (switch $idx)"
rfkill block "$idx"
wait_until 5 _log_has /sys/class/bluetooth/hci0/rfkill"$idx"/soft 1 || fail "soft flag not set"
rfkill list | tee "$E2E_OUT/rfkill.txt"

step "doctor: FAIL rfkill, exit 1"
rc=0
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2> "$E2E_OUT/doctor.err" || rc=$?
cat "$E2E_OUT/doctor.txt" "$E2E_OUT/doctor.err"
[ "$rc" = 1 ] || fail "doctor exited $rc, want 1"
grep -q '^FAIL  rfkill  *hci0  blocked by rfkill (soft): it cannot be brought up$' "$E2E_OUT/doctor.txt" || fail "no FAIL rfkill line"
grep -q 'remedy: run: rfkill unblock bluetooth$' "$E2E_OUT/doctor.txt" || fail "no remedy"
"$BEACON_TX" doctor --device hci0 --json > "$E2E_OUT/doctor.json" || true
/usr/bin/python3 -S - "$E2E_OUT/doctor.json" <<'PY' || fail "doctor --json: no rfkill fail"
import json, sys
r = json.load(open(sys.argv[1]))
f = [x for x in r["findings"] if x["id"] == "rfkill"][0]
assert f["verdict"] == "fail" and f["device"] == "hci0" and not r["ok"], f
PY

step "devices and status show the block"
"$BEACON_TX" devices | tee "$E2E_OUT/devices.txt"
grep -q '^hci0 .* blocked by rfkill (soft)' "$E2E_OUT/devices.txt" || fail "devices does not show the block"
"$BEACON_TX" devices --json | grep -A3 '"rfkill": {' | grep -q '"soft": true' || fail "devices --json: no rfkill soft true"
rc=0
"$BEACON_TX" status > "$E2E_OUT/status.txt" || rc=$?
cat "$E2E_OUT/status.txt"
[ "$rc" = 3 ] || fail "status exited $rc, want 3"
grep -q '^  hci0 is blocked by rfkill (soft): run: rfkill unblock bluetooth$' "$E2E_OUT/status.txt" || fail "status does not show the block"

step "start --device-timeout 0: exit 69 at once"
rc=0
"$BEACON_TX" start --device hci0 --device-timeout 0 --config "$REPO/Config/kiosk.json" 2> "$E2E_OUT/now.err" || rc=$?
cat "$E2E_OUT/now.err"
[ "$rc" = 69 ] || fail "exit $rc, want 69"
grep -qx 'beacon-tx start: hci0 is blocked by rfkill (soft); run: rfkill unblock bluetooth' "$E2E_OUT/now.err" || fail "message: $(cat "$E2E_OUT/now.err")"

step "no --device: hci0 is passed over for hci1, and said why"
"$BEACON_TX" start --detach --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 --major 1 --minor 2 2> "$E2E_OUT/default.err" || fail "default start exited $?: $(cat "$E2E_OUT/default.err")"
cat "$E2E_OUT/default.err"
grep -qx 'beacon-tx: hci0 is blocked by rfkill (soft); using hci1' "$E2E_OUT/default.err" || fail "no reason for passing hci0 over"
"$BEACON_TX" stop --device hci1 > /dev/null 2>&1 || fail "stop hci1"

step "start --device-timeout 60 waits for the unblock"
notify_start
NOTIFY_SOCKET=$sock run_bg late "$BEACON_TX" start --device hci0 --device-timeout 60 --config "$REPO/Config/kiosk.json"
wait_until 10 _log_has "$E2E_OUT/late.log" 'waiting for hci0 (blocked by rfkill): hci0: soft; up to 60 s (--device-timeout); run: rfkill unblock bluetooth' ||
  fail "no waiting note: $(tail -n 3 "$E2E_OUT/late.log")"
wait_until 5 _log_has "$notes" 'STATUS=waiting for hci0 (blocked by rfkill)' || fail "no STATUS: $(cat "$notes")"
grep 'STATUS=' "$notes"
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-waiting.txt" 2>&1 || true
grep -q '^WARN  session  *hci0  pid .*nothing on air .*waiting for hci0 (blocked by rfkill)' "$E2E_OUT/doctor-waiting.txt" ||
  fail "doctor does not show the waiting session: $(grep session "$E2E_OUT/doctor-waiting.txt")"
sleep 2
expect_idle late   # it sleeps: no CPU while waiting

step "rfkill unblock: on air by itself, heard on hci1"
scan_start hci1
t0=$EPOCHREALTIME
rfkill unblock "$idx"
# (no "press Ctrl-C" line: with NOTIFY_SOCKET it is supervised)
wait_until 40 _log_has "$E2E_OUT/late.log" 'beacon-tx: advertising kiosk-lobby ' || fail "not on air after the unblock: $(tail -n 4 "$E2E_OUT/late.log")"
echo "TIMING unblock -> on air (log): $(echo "$EPOCHREALTIME - $t0" | bc 2>/dev/null || echo '?') s"
expect_adv_data -s hci1 -a "$(bdaddr hci0)" -t 10 "$GOLDEN"
echo "TIMING unblock -> heard: $(echo "$EPOCHREALTIME - $t0" | bc 2>/dev/null || echo '?') s"
grep -q 'beacon-tx: hci0 was unblocked after ' "$E2E_OUT/late.log" || fail "no 'unblocked' note"
wait_until 5 _log_has "$notes" 'STATUS=1 beacon on air on hci0' || fail "no on-air STATUS: $(cat "$notes")"
stop_bg late TERM
cat "$E2E_OUT/late.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM, want 0"
