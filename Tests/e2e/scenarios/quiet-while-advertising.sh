#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# quiet-while-advertising: a foreground `beacon-tx start` sleeps through another program's scanning on
# the same controller: while hci0 scans and receives hci1's advertising reports, beacon-tx is not
# woken (its voluntary context switches do not grow with the reports), and SIGTERM still stops it.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg adv "$BEACON_TX" start --device hci0 --config "$REPO/Config/kiosk.json"
wait_until 10 _has_line "$E2E_OUT/adv.log" 'beacon-tx: press Ctrl-C' || fail "start did not start: $(tail -n 3 "$E2E_OUT/adv.log")"
pid=$(_bg_pid adv)
switches() { awk '$1 == "voluntary_ctxt_switches:" {print $2}' "/proc/$pid/status"; }
scan_start hci0
before=$(switches)
expect_status 0x00 hci1 0x08 0x0006 a0 00 a0 00 03 00 00 00 00 00 00 00 00 07 00
expect_status 0x00 hci1 0x08 0x0008 03 02 01 06 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
for _ in 1 2 3 4 5; do
  expect_status 0x00 hci1 0x08 0x000a 01 > /dev/null
  expect_status 0x00 hci1 0x08 0x000a 00 > /dev/null
done
reports=$(scan_reports hci0 | grep -c 'data=020106' || true)
after=$(switches)
echo "hci0 received $reports report(s) from hci1; beacon-tx voluntary context switches $before -> $after"
[ "$reports" -ge 3 ] || fail "hci0's scanner received only $reports report(s): the check proves nothing"
[ $(( after - before )) -lt 2 ] || fail "beacon-tx woke up $(( after - before )) times while others' reports arrived"
stop_bg adv TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
expect_last_adv_enable hci0 disable
