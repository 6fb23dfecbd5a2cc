#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# scan-region-filter (issue 5c): a --region that does not match (other major) filters the golden
# beacon out: no range and no enter line, while a matching scan alongside sees it.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg other "$BEACON_TX" scan --device hci1 --json --region E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:2
run_bg match "$BEACON_TX" scan --device hci1 --json --region e2c56db5dffb48d2b060d0f5a71096e0
wait_until 10 _has_line "$E2E_OUT/other.log" 'beacon-tx: scanning on hci1' || fail "scan (other) did not start"
wait_until 10 _has_line "$E2E_OUT/match.log" 'beacon-tx: scanning on hci1' || fail "scan (match) did not start"
"$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start exited $?"
wait_until 10 _has_line "$E2E_OUT/match.log" '{"event":"range"' || fail "the matching scan saw nothing: $(tail -n 3 "$E2E_OUT/match.log")"
stop_bg other TERM
[ "$BG_RC" = 0 ] || fail "the non-matching scan exited $BG_RC"
stop_bg match TERM
[ "$BG_RC" = 0 ] || fail "the matching scan exited $BG_RC"
cat "$E2E_OUT/other.log"
if grep -q '^{' "$E2E_OUT/other.log"; then fail "the non-matching region reported: $(grep '^{' "$E2E_OUT/other.log" | head -n 1)"; fi
# it did hear the advertisement, and filtered the beacon out
grep -qE 'scanning stopped on hci1: [1-9][0-9]* report\(s\), 0 beacon\(s\)' "$E2E_OUT/other.log" ||
  fail "the non-matching scan did not hear the report it had to filter: $(tail -n 1 "$E2E_OUT/other.log")"
