#!/bin/bash
# e2e-controllers: rootcanal default
# rc-start-families (issue 20): on RootCanal's DEFAULT controller (Core 5.3, 16 sets), `start` in
# auto, legacy and extended each puts the golden iBeacon on air, and the receiver on hci1 hears it at
# every advertising event (100 ms: at least 3 reports/s asserted, about 9 on an idle host); the commands beacon-tx sent (btmon) are its
# dry run's hex, start then stop; `verify` passes on each live capture (btmon -w). Prints the rate,
# the time from exec to the first report and the verify verdict per family.
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/verify.inc"
GOLDEN=(--uuid "$RC_UUID" --major 1 --minor 2)
rc_rx
addr=$(bdaddr hci0)
for family in auto legacy extended; do
  step "start --controller $family --duration 4"
  rc_reset_hci0
  V_SNOOP=$E2E_OUT/verify-$family.snoop
  v_btmon_start
  hci_mark "$family"
  t0=$EPOCHREALTIME
  "$BEACON_TX" start --device hci0 --controller "$family" "${GOLDEN[@]}" --duration 4 > "$E2E_OUT/start-$family.log" 2>&1 ||
    fail "start --controller $family exited $?: $(tail -n 2 "$E2E_OUT/start-$family.log")"
  t1=$EPOCHREALTIME
  v_btmon_stop
  cat "$E2E_OUT/start-$family.log"
  used=$family; [ "$family" = auto ] && used=extended
  _log_has "$E2E_OUT/start-$family.log" "($used commands" || fail "$family: not $used commands"
  rc_first 1.2 "$t0" --until "$t1" --addr "$addr"
  echo "$family: exec to the first report heard: $RC_FIRST_S s"
  rc_onair --since "$RC_FIRST" --until "$t1" --addr "$addr"
  rc_rate 1.2 --since "$RC_FIRST" --until "$t1" --addr "$addr"
  rc_at_least "$RC_RATE" 3 "$family: too few reports/s at 100 ms"
  expect_adv_data -s hci1 -a "$addr" "$(rc_data 1 2)"
  rc_sent "$family" > "$E2E_OUT/sent-$family.txt"
  rc_dry_hex --controller "$used" "${GOLDEN[@]}" > "$E2E_OUT/dry-$family.txt"
  diff "$E2E_OUT/dry-$family.txt" "$E2E_OUT/sent-$family.txt" > "$E2E_OUT/diff-$family.txt" ||
    fail "$family: sent ≠ dry run: $(head -n 6 "$E2E_OUT/diff-$family.txt" | tr '\n' ' ')"
  v_verify "verify-$family" "${GOLDEN[@]}" --controller "$used"
  [ "$V_RC" = 0 ] || fail "$family: verify exited $V_RC: $(tail -n 1 "$E2E_OUT/verify-$family.err")"
done
