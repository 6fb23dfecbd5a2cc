#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scan-hcitool-peer (issue 5a): plain `hcitool cmd` advertises the golden iBeacon on hci0;
# `beacon-tx scan --device hci1 --json` reports its uuid, major, minor and measured power exactly.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg scan "$BEACON_TX" scan --device hci1 --json
wait_until 10 _has_line "$E2E_OUT/scan.log" 'beacon-tx: scanning on hci1' || fail "scan did not start: $(tail -n 3 "$E2E_OUT/scan.log")"
expect_status 0x00 hci0 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
expect_status 0x00 hci0 0x08 0x0008 1e 02 01 06 1a ff 4c 00 02 15 e2 c5 6d b5 df fb 48 d2 b0 60 d0 f5 a7 10 96 e0 00 01 00 02 c5 00
expect_status 0x00 hci0 0x08 0x000a 01
wait_until 10 _has_line "$E2E_OUT/scan.log" '{"event":"range"' || fail "no ranging line: $(tail -n 3 "$E2E_OUT/scan.log")"
stop_bg scan TERM
cat "$E2E_OUT/scan.log"
[ "$BG_RC" = 0 ] || fail "scan exited $BG_RC after SIGTERM, want 0"
addr=$(bdaddr hci0)
"${E2E_PY[@]}" - "$E2E_OUT/scan.log" "$addr" <<'PY' || fail "the ranging line does not match the golden beacon"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
r = [l for l in lines if l["event"] == "range"][0]
assert r["uuid"] == "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", r
assert (r["major"], r["minor"], r["measuredPower"]) == (1, 2, -59), r
assert r["address"] == sys.argv[2], r
# btvirt reports RSSI 127 (not available): no made-up distance
assert r["rssi"] is None and r["smoothedRssi"] is None, r
assert r["distance"] is None and r["proximity"] == "unknown", r
PY
expect_hci_command hci1 0x2042     # extended scanning on a controller that supports it
expect_no_hci_command hci1 0x200c
