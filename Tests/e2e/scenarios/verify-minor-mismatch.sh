#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# verify-minor-mismatch (issue 14): a capture of a live `start` of minors 1 and 2, verified with a
# config whose second minor is 3: exit 1, and stdout and the stderr line name the iBeacon minor.
. "$(dirname "$0")/verify.inc"
v_config "$E2E_OUT/kiosk.json" 1 2
v_config "$E2E_OUT/other.json" 1 3
v_btmon_start
kiosk_start kiosk --config "$E2E_OUT/kiosk.json"
stop_bg kiosk
[ "$BG_RC" = 0 ] || fail "beacon-tx exited $BG_RC on SIGTERM"
v_btmon_stop

v_verify same --config "$E2E_OUT/kiosk.json"
[ "$V_RC" = 0 ] || fail "verify with the same config exited $V_RC"
v_verify other --config "$E2E_OUT/other.json"
[ "$V_RC" = 1 ] || fail "verify with minor 3 exited $V_RC, not 1"
v_has other "FAIL: beacon 2: LE Set Extended Advertising Data: iBeacon minor 3 ≠ 2 (config ≠ capture)"
_log_has "$E2E_OUT/other.err" "iBeacon minor 3 ≠ 2" || fail "stderr does not name the minor: $(cat "$E2E_OUT/other.err")"
