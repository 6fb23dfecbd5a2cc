#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-config (issue 32): doctor --config with a broken config exits 1 with FAIL config and the
# exact error start gives for it; with the shipped kiosk.json it is OK with the plan it makes on this
# controller (extended commands, one set); twelve beacons rotated every 100 ms warn of the 1.2 s cycle.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

cat > "$E2E_OUT/broken.json" <<'JSON'
{ "beacons": [ { "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 70000, "minor": 1 } ] }
JSON
rc=0
"$BEACON_TX" doctor --device hci0 --config "$E2E_OUT/broken.json" > "$E2E_OUT/doctor.txt" 2>&1 || rc=$?
cat "$E2E_OUT/doctor.txt"
[ "$rc" = 1 ] || fail "doctor exited $rc, want 1"
rc=0
"$BEACON_TX" start --device hci0 --config "$E2E_OUT/broken.json" 2> "$E2E_OUT/start.err" || rc=$?
[ "$rc" = 65 ] || fail "start exited $rc, want 65"
# start's line shortens a long path with an ellipsis; the reason after it is the same.
error=$(sed 's/^beacon-tx start: config [^:]*: //' "$E2E_OUT/start.err")
[ "$error" = 'beacons[0].major: 70000 is out of range (accepted 0–65535)' ] || fail "start's error: $(cat "$E2E_OUT/start.err")"
grep -qF "FAIL  config" "$E2E_OUT/doctor.txt" || fail "no FAIL config"
# (a long path is shortened with an ellipsis, as in start's line)
grep -q '^FAIL  config  *-  *[^ ]*broken.js[^ ]* is not valid: config [^ ]*broken.js[^ ]*: ' "$E2E_OUT/doctor.txt" || fail "FAIL config does not name the file"
grep -qF -- ": $error" "$E2E_OUT/doctor.txt" || fail "not start's error ($error)"

"$BEACON_TX" doctor --device hci0 --config "$REPO/Config/kiosk.json" > "$E2E_OUT/doctor-ok.txt" 2>&1 || fail "doctor with kiosk.json exited $?"
grep 'config' "$E2E_OUT/doctor-ok.txt"
grep -q "^OK    config  *-  *$REPO/Config/kiosk.json is valid: 1 beacon, extended commands, one set" "$E2E_OUT/doctor-ok.txt" || fail "no OK config with the plan"

beacons=$(for i in $(seq 1 12); do printf '{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": %d},' "$i"; done)
echo "{\"controller\": \"legacy\", \"rotation\": 100, \"beacons\": [${beacons%,}]}" > "$E2E_OUT/many.json"
"$BEACON_TX" doctor --device hci0 --config "$E2E_OUT/many.json" > "$E2E_OUT/doctor-many.txt" 2>&1 || fail "doctor with many.json exited $?"
grep -A2 'config' "$E2E_OUT/doctor-many.txt"
grep -q '^WARN  config' "$E2E_OUT/doctor-many.txt" || fail "no WARN config"
grep -q 'rotation cycle 1200 ms (12 beacons x 100 ms) is longer than iOS' "$E2E_OUT/doctor-many.txt" || fail "no cycle warning"
