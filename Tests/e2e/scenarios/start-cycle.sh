#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# start-cycle (issue 13): `start --cycle 2:2:2` is on air for 2 s, off for 2 s, on, off, then exits 0.
# Each phase change is timed from beacon-tx's own notes (each within 2 +- 1 s of the previous; the
# first only at most 3 s after `start` was seen on air, which the bed notices late under TCG), and
# the receiver on hci1 (re-enabling every 0.5 s) hears the beacon in each on phase and nothing for
# 1 s inside each off phase.
. "$(dirname "$0")/kiosk.inc"
k_setup
kiosk_start cyc --beacon "$K_UUID:1:2" --cycle 2:2:2
last=$EPOCHREALTIME min=0
_phase() {   # _phase TEXT: waits for the note, checks the time since the previous phase change
  wait_until 6 _log_has "$E2E_OUT/cyc.log" "$1" || fail "no '$1' note: $(tail -n 2 "$E2E_OUT/cyc.log")"
  local now=$EPOCHREALTIME ms
  ms=$(( (${now/./} - ${last/./}) / 1000 ))
  last=$now
  echo "$1: ${ms} ms after the previous phase change"
  [ "$ms" -ge "$min" ] && [ "$ms" -le 3000 ] || fail "'$1' came ${ms} ms after the previous phase change, want 2000 +- 1000"
}
_heard() { scan_clear hci1; expect_adv_data -s hci1 -a "$K_ADDR" -t 1.5 "$(k_data 2)"; }
_silent() { scan_clear hci1; expect_no_adv_data -s hci1 -t 1 "$(k_data 2)"; }
_heard
_phase 'cycle: off for 2 s (1 of 2)'
min=1000
_silent
_phase 'after: cycle: on for 2 s'
_heard
_phase 'cycle: off for 2 s (2 of 2)'
_silent
_phase 'schedule done'
wait_bg cyc 10
cat "$E2E_OUT/cyc.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after the last cycle, want 0"
