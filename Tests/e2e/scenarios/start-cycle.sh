#!/bin/bash
# start-cycle (issue 13): `start --cycle 2:2:2` is on air 0-2 s, off 2-4 s, on 4-6 s, off 6-8 s, then
# exits 0. The receiver on hci1 (re-enabling every 0.5 s) is sampled in the middle of each phase
# (windows of 1 s, so the phase changes may be off by up to 0.5 s either way).
. "$(dirname "$0")/kiosk.inc"
k_setup
kiosk_start cyc --beacon "$K_UUID:1:2" --cycle 2:2:2
t0=$EPOCHREALTIME
_at() {   # _at SECS: sleeps until t0 + SECS
  local now left
  now=$EPOCHREALTIME
  _us "$1"; left=$(( ${t0/./} + _US - ${now/./} ))
  [ "$left" -le 0 ] || _sleep "$((left / 1000000)).$(printf '%06d' $((left % 1000000)))"
}
_window() {   # _window FROM TO on|off
  _at "$1"; scan_clear hci1; _at "$2"
  if [ "$3" = on ]; then _adv_args 0 -s hci1 "$(k_data 2)"; _adv_seen || fail "not heard during the on phase ($1-$2 s)"
  else _adv_args 0 -s hci1 "$(k_data 2)"; ! _adv_seen || fail "heard during the off phase ($1-$2 s)"; fi
  echo "$1-$2 s: $3 as expected"
}
_window 0.5 1.5 on
_window 2.5 3.5 off
_window 4.5 5.5 on
_window 6.5 7.5 off
wait_bg cyc 10
cat "$E2E_OUT/cyc.log"
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after the last cycle, want 0"
