#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal legacy-only
# e2e-timeout: 240
# rc-share-cycle (issue 29, items 3, 4 and 10): the sharing session keeps what the raw-HCI session
# keeps. On the single-instance controller bluetoothd manages, with a kernel instance (`btmgmt
# add-adv 1`), `start --share auto --cycle 4:4:2 --metrics FILE` under a notify listener with
# WATCHDOG_USEC=2 s shares the instance and: sends WATCHDOG=1 all along (at least one per 1.5 s);
# keeps the metrics file valid with beacon_tx_session_up 1 while running and 0 at the end; and the
# independent receiver on hci1 hears our beacon in each on phase and not at all from 0.5 s after
# each off phase begins to its end (MGMT Remove Advertising of our instance, added again on), the
# phases timed by beacon-tx's sd_notify STATUS messages (cycle-windows.inc). The reports per phase
# are printed (WINDOW lines).
. "$(dirname "$0")/rc.inc"
. "$(dirname "$0")/cycle-windows.inc"
rc_bluez
onair_rx
rc_kernel_adv 1
notify_start --clock
prom=$E2E_OUT/beacon-tx.prom
t_start=$EPOCHREALTIME
NOTIFY_SOCKET=$sock WATCHDOG_USEC=2000000 run_bg cyc "$BEACON_TX" start --device hci0 --beacon "$RC_UUID:1:1" --share auto \
  --rotation 1000 --cycle 4:4:2 --metrics "$prom"
wait_until 30 _log_has "$E2E_OUT/cyc.log" "as kernel advertising instance" || fail "not on air: $(tail -n 3 "$E2E_OUT/cyc.log")"
wait_until 5 test -s "$prom" && cp "$prom" "$E2E_OUT/prom-while-on.txt"
grep -E 'sharing it|as kernel advertising instance' "$E2E_OUT/cyc.log" || fail "not shared: $(tail -n 5 "$E2E_OUT/cyc.log")"
wait_bg cyc 60
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after the last cycle, want 0: $(tail -n 3 "$E2E_OUT/cyc.log")"
t_end=$EPOCHREALTIME
cycle_windows_check 4 4 2
# The watchdog: fed on raw HCI's schedule (a quarter of WATCHDOG_USEC) for the whole session.
beats=$(grep -c 'WATCHDOG=1' "$notes" || true)
secs=$(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%d", b - a }')
echo "WATCHDOG=1 datagrams: $beats in $secs s"
[ "$beats" -ge $((secs * 2 / 3)) ] || fail "only $beats WATCHDOG=1 in $secs s (want one a second)"
# The metrics file: valid, and the session down at the end.
cat "$prom"
"${E2E_PY[@]}" - "$prom" <<'PY' || fail "metrics file"
import re, sys
text = open(sys.argv[1]).read()
for line in text.splitlines():
    assert line.startswith("#") or re.match(r'^[a-z_]+(\{[^}]*\})? -?[0-9.e+]+$', line), line
assert re.search(r'^beacon_tx_session_up\{device="hci0"\} 0$', text, re.M), "session_up 0 at the end"
assert re.search(r'^beacon_tx_rearms_total\{device="hci0",reason="schedule"\} 1$', text, re.M), "one on phase re-added"
print("metrics ok")
PY
grep -q 'beacon_tx_session_up{device="hci0"} 1' "$E2E_OUT/prom-while-on.txt" || fail "session_up not 1 while on air: $(cat "$E2E_OUT/prom-while-on.txt")"
stop_bg notify TERM
