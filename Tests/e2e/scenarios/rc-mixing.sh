#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-mixing (issue 20): RootCanal enforces the legacy/extended mixing rule (Core Vol 4, Part E,
# §3.1.1) both ways, so beacon-tx meets Command Disallowed for real:
# - legacy mode (a raw legacy LE Set Advertising Parameters) → a raw extended command gets 0x0c;
#   `start --controller extended` exits 69 naming the mode and the remedy, sending no legacy
#   command; `start` (auto) switches to legacy once and is heard; `scan` on hci0 scans legacy;
# - extended mode (a raw LE Set Extended Advertising Parameters) → a raw legacy one gets 0x0c;
#   `start --controller legacy` exits 69; auto uses extended; `scan` on hci0 switches to extended.
. "$(dirname "$0")/rc.inc"
onair_rx
addr=$(bdaddr hci0)
G=(--uuid "$RC_UUID" --major 1 --minor 2)
LEGACY_PARAMS=(a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00)
EXT_PARAMS=(01 10 00 a0 00 00 a0 00 00 07 00 00 00 00 00 00 00 00 00 7f 01 00 01 00 00)

step "legacy mode: extended refused"
rc_reset_hci0
expect_status 0x00 hci0 0x08 0x0006 "${LEGACY_PARAMS[@]}"
expect_status 0x0c hci0 0x08 0x0036 "${EXT_PARAMS[@]}"
hci_mark forced-extended
rc=0; "$BEACON_TX" start --device hci0 --controller extended "${G[@]}" --detach > "$E2E_OUT/forced-extended.log" 2>&1 || rc=$?
cat "$E2E_OUT/forced-extended.log"
[ "$rc" = 69 ] || fail "forced extended in legacy mode exited $rc, want 69"
_log_has "$E2E_OUT/forced-extended.log" "it is in legacy advertising mode, and the extended family was forced; reset the controller" ||
  fail "no forced-family error with its remedy"
sent=$(rc_sent forced-extended)
[[ $sent != *"0x2006"* && $sent != *"0x2008"* ]] || fail "a forced extended start sent legacy commands: $sent"
step "legacy mode: auto switches once"
run_bg auto "$BEACON_TX" start --device hci0 "${G[@]}"
wait_until 15 _has_line "$E2E_OUT/auto.log" 'beacon-tx: press Ctrl-C' || fail "auto did not start: $(tail -n 3 "$E2E_OUT/auto.log")"
cat "$E2E_OUT/auto.log"
_log_has "$E2E_OUT/auto.log" "Command Disallowed (0x0c); the controller is in legacy advertising mode, switching to legacy commands" || fail "no switch note"
_log_has "$E2E_OUT/auto.log" "(legacy commands" || fail "auto did not end on legacy commands"
expect_adv_data -s hci1 -a "$addr" "$(ibeacon_data 1 2)"
stop_bg auto TERM
[ "$BG_RC" = 0 ] || fail "auto exited $BG_RC on SIGTERM"
run_bg scan0 "$BEACON_TX" scan --device hci0 --duration 2
wait_bg scan0 15
cat "$E2E_OUT/scan0.log"
_log_has "$E2E_OUT/scan0.log" "scanning on hci0 (legacy commands" || fail "scan in legacy mode did not scan legacy"

step "extended mode: legacy refused"
rc_reset_hci0
expect_status 0x00 hci0 0x08 0x0036 "${EXT_PARAMS[@]}"
expect_status 0x0c hci0 0x08 0x0006 "${LEGACY_PARAMS[@]}"
hci_mark forced-legacy
rc=0; "$BEACON_TX" start --device hci0 --controller legacy "${G[@]}" --detach > "$E2E_OUT/forced-legacy.log" 2>&1 || rc=$?
cat "$E2E_OUT/forced-legacy.log"
[ "$rc" = 69 ] || fail "forced legacy in extended mode exited $rc, want 69"
_log_has "$E2E_OUT/forced-legacy.log" "it is in extended advertising mode, and the legacy family was forced" || fail "no forced-family error"
sent=$(rc_sent forced-legacy)
[[ $sent != *"0x2036"* && $sent != *"0x2037"* ]] || fail "a forced legacy start sent extended commands: $sent"
"$BEACON_TX" start --device hci0 "${G[@]}" --duration 2 > "$E2E_OUT/auto-ext.log" 2>&1 || fail "auto in extended mode exited $?"
_log_has "$E2E_OUT/auto-ext.log" "(extended commands" || fail "auto in extended mode: $(cat "$E2E_OUT/auto-ext.log")"
run_bg scan1 "$BEACON_TX" scan --device hci0 --duration 2
wait_bg scan1 15
cat "$E2E_OUT/scan1.log"
_log_has "$E2E_OUT/scan1.log" "scanning on hci0 (extended commands" || fail "scan in extended mode did not switch to extended"
