#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# verify-clr-adv (issue 14): `btmgmt clr-adv` after `start --detach` (nothing re-arms): verify exits 1
# and reports that the beacon went off, the HCI command that did it and btmgmt's MGMT command. Then
# the same with a foreground kiosk: it re-arms, so verify passes and shows off, then on again.
# (bluetoothd runs: without a powered mgmt controller clr-adv sends nothing; one beacon, as
# bluetoothd's handle 0, btmgmt's instance 1 and our set 239 fill btvirt's three sets.)
. "$(dirname "$0")/verify.inc"
bluetoothd_start
v_config "$E2E_OUT/kiosk.json" 1

step "detached: nothing re-arms"
v_btmon_start
"$BEACON_TX" start --config "$E2E_OUT/kiosk.json" --detach || fail "start --detach exited $?"
out=$(btmgmt_cmd 0 add-adv -d 020106 1)
[[ $out == *"Instance added: 1"* ]] || fail "btmgmt add-adv did not add instance 1: $out"
btmgmt_cmd 0 clr-adv
expect_hci_command hci0 0x203d
v_btmon_stop
v_verify detached --config "$E2E_OUT/kiosk.json"
[ "$V_RC" = 1 ] || fail "verify exited $V_RC, not 1"
v_has detached "went off at "
v_has detached "sent by the kernel for MGMT Remove Advertising (0x003f) from btmgmt"
v_has detached "at the end: off since"
_log_has "$E2E_OUT/detached.err" "off air at the end of the capture: went off at" || fail "stderr: $(cat "$E2E_OUT/detached.err")"
"$BEACON_TX" stop --device hci0 || fail "stop exited $?"

step "foreground kiosk: re-armed, verify passes"
V_SNOOP=$E2E_OUT/verify-kiosk.snoop
v_btmon_start
kiosk_start kiosk --config "$E2E_OUT/kiosk.json"
out=$(btmgmt_cmd 0 add-adv -d 020106 1)
[[ $out == *"Instance added: 1"* ]] || fail "btmgmt add-adv did not add instance 1: $out"
btmgmt_cmd 0 clr-adv
kiosk_rearmed kiosk "another program"
stop_bg kiosk
[ "$BG_RC" = 0 ] || fail "beacon-tx exited $BG_RC on SIGTERM"
v_btmon_stop
v_verify kiosk --config "$E2E_OUT/kiosk.json"
[ "$V_RC" = 0 ] || fail "verify of the re-armed kiosk exited $V_RC"
v_has kiosk "from btmgmt"
v_has kiosk "at the end: stopped by beacon-tx's stop plan"
