#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# one-owner-per-device (issue 18): beside a foreground kiosk on hci0, a second `start` (foreground
# or --detach) exits 75 naming the kiosk's pid and sends nothing; `stop --device hci0` stops the
# kiosk (SIGTERM; it runs its own stop plan and exits 0) and says so, and nothing is heard after.
# A state file left by a SIGKILLed session is taken over with a note.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

scan_start hci1
kiosk_start kiosk --config "$REPO/Config/kiosk.json"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"

for mode in foreground detach; do
  step "a second start ($mode) is refused"
  hci_mark "second-$mode"
  rc=0
  "$BEACON_TX" start --device hci0 --beacon E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:9:9 $([ $mode = detach ] && echo --detach) \
    > "$E2E_OUT/second.out" 2> "$E2E_OUT/second.err" || rc=$?
  cat "$E2E_OUT/second.err"
  [ "$rc" = 75 ] || fail "second start ($mode) exited $rc, want 75"
  grep -q "^beacon-tx start: hci0 is in use by another beacon-tx session (pid $KIOSK_PID); stop it first" "$E2E_OUT/second.err" ||
    fail "message does not name pid $KIOSK_PID: $(cat "$E2E_OUT/second.err")"
  [ -z "$(hci_log --since "second-$mode" hci0 | grep -v ' cmd 0x0c14\| cmd 0x1001\| cmd 0x1002\| cmd 0x2003' || true)" ] ||
    fail "the refused start sent: $(hci_log --since "second-$mode" hci0 | head -n 3)"
done
kiosk_expect_alive kiosk

step "stop --device hci0 stops the foreground kiosk"
"$BEACON_TX" stop --device hci0 > "$E2E_OUT/stop.out" 2> "$E2E_OUT/stop.err" || fail "stop exited $?: $(cat "$E2E_OUT/stop.err")"
cat "$E2E_OUT/stop.err"
grep -q "stopped the beacon-tx session of pid $KIOSK_PID on hci0 (it ran its stop plan); advertising is off on hci0" "$E2E_OUT/stop.err" ||
  fail "stop does not say whose session it stopped"
wait_bg kiosk 5
[ "$BG_RC" = 0 ] || fail "the kiosk exited $BG_RC, want 0"
grep -q 'signal 15: advertising stopped on hci0' "$E2E_OUT/kiosk.log" || fail "the kiosk did not run its stop plan"
scan_clear hci1
expect_no_adv_data -s hci1 -a "$addr" -t 3 "$GOLDEN"

step "a SIGKILLed session's state file is taken over with a note"
kiosk_start killed --config "$REPO/Config/kiosk.json"
killed=$KIOSK_PID
kill -KILL "$killed"
wait "$killed" 2>/dev/null || true
rm -f "$E2E_OUT/.bg-killed.pid"
kiosk_start after --config "$REPO/Config/kiosk.json"
grep -q "beacon-tx: hci0: taking over from pid $killed, which is gone (its state file /run/beacon-tx/hci0.json says on air)" "$E2E_OUT/after.log" ||
  fail "no take-over note: $(head -n 3 "$E2E_OUT/after.log")"
stop_bg after TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC"
