#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# doctor-second-owner (issue 32): with a foreground kiosk on hci0, doctor names it: WARN owner (the
# device lock is held: pid, and that a second start exits 75) and OK session (on air, from its state
# file); doctor took nothing from it (the kiosk is the same process and still heard). After a
# SIGKILL of the kiosk, the lock is free (OK owner) and the state file is stale (WARN session).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

scan_start hci1
kiosk_start kiosk --config "$REPO/Config/kiosk.json"
expect_adv_data -s hci1 -a "$(bdaddr hci0)" -t 10 "$GOLDEN"
hci_mark doctor
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor.txt" 2>&1 || fail "doctor exited $?"
cat "$E2E_OUT/doctor.txt"
grep -q "^WARN  owner  *hci0  another beacon-tx owns hci0 (pid $KIOSK_PID): a second start on it exits 75\$" "$E2E_OUT/doctor.txt" || fail "no WARN owner naming pid $KIOSK_PID"
grep -q "^OK    session  *hci0  pid $KIOSK_PID: on air since " "$E2E_OUT/doctor.txt" || fail "no OK session"
kiosk_expect_alive kiosk
# doctor sent reads only (the probe: 0x1001, 0x0c02 …, 0x2003, 0x203a, 0x203b) and the kiosk did not re-arm.
[ -z "$(hci_log --since doctor hci0 | grep ' cmd ' | grep -v ' cmd 0x1001\| cmd 0x1002\| cmd 0x1003\| cmd 0x2003\| cmd 0x203a\| cmd 0x203b\| cmd 0x0c14' || true)" ] ||
  fail "doctor sent: $(hci_log --since doctor hci0 | grep ' cmd ' | head -n 5)"
_sleep 2
! grep -q 're-arm' "$E2E_OUT/kiosk.log" || fail "the kiosk re-armed after doctor: $(grep 're-arm' "$E2E_OUT/kiosk.log")"

stop_bg kiosk KILL
"$BEACON_TX" doctor --device hci0 > "$E2E_OUT/doctor-stale.txt" 2>&1 || fail "doctor exited $?"
cat "$E2E_OUT/doctor-stale.txt"
grep -q '^OK    owner  *hci0  no beacon-tx session owns hci0$' "$E2E_OUT/doctor-stale.txt" || fail "the lock of a killed session is still held"
grep -q "^WARN  session  *hci0  stale state: pid $KIOSK_PID is gone" "$E2E_OUT/doctor-stale.txt" || fail "no WARN stale session"
"$BEACON_TX" stop --device hci0 > /dev/null 2>&1 || true
