#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-cycle (issue 13): `start --cycle 2:2:2` is on air for 2 s, off for 2 s, on, off, then exits 0.
# Each phase lasts 2 +- 1 s, timed from beacon-tx's sd_notify STATUS messages as a listener stamped
# them on arrival, and the receiver on hci1 (re-enabling every 0.5 s, its reports stamped by the
# kernel) hears the beacon in each on phase and nothing inside each off phase (cycle-windows.inc).
. "$(dirname "$0")/kiosk.inc"
. "$(dirname "$0")/onair.inc"
. "$(dirname "$0")/cycle-windows.inc"
scan_start hci1 --mode extended --reenable 0.5 --clock
notify_start --clock
NOTIFY_SOCKET=$sock run_bg cyc "$BEACON_TX" start --device hci0 --beacon "$K_UUID:1:2" --cycle 2:2:2
wait_bg cyc 30
cat "$E2E_OUT/cyc.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after the last cycle, want 0"
for n in 'cycle: off for 2 s (1 of 2)' 'after: cycle: on for 2 s' 'cycle: off for 2 s (2 of 2)' 'schedule done'; do
  _log_has "$E2E_OUT/cyc.log" "$n" || fail "no '$n' note"
done
cycle_windows_check 2 2 2
stop_bg notify TERM
