#!/bin/bash
# service-notify (issue 9): `beacon-tx start` under a stand-in for systemd: a notify listener as
# $NOTIFY_SOCKET (Tests/e2e/tools/notify-listen.py), $RUNTIME_DIRECTORY, $WATCHDOG_USEC and a
# $JOURNAL_STREAM naming its stderr. The listener must record, in order, READY=1 with the
# on-air STATUS once advertising is on, then STOPPING=1 on SIGTERM; WATCHDOG=1 arrives at half
# of WATCHDOG_USEC while on air; `beacon-tx status` exits 0 while on air and 3 after the stop
# (state file removed); every stderr line carries a <N> priority prefix.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

sock=/tmp/beacon-tx-notify.$$.sock   # the guest's tmpfs: 9p (E2E_OUT) cannot hold a socket
notes=$E2E_OUT/notify.txt
run_bg notify "${E2E_PY[@]}" "$E2E_DIR/tools/notify-listen.py" "$sock" "$notes"
wait_until 10 _has_line "$notes" '# listening' || fail "notify listener did not start: $(cat "$E2E_OUT/notify.log")"

rt=$E2E_OUT/run
mkdir -p "$rt"
: > "$E2E_OUT/adv.log"   # run_bg truncates it in place: same device and inode for JOURNAL_STREAM
journal=$(stat -c '%d:%i' "$E2E_OUT/adv.log")

step "start with NOTIFY_SOCKET, RUNTIME_DIRECTORY, WATCHDOG_USEC=1000000, JOURNAL_STREAM=$journal"
run_bg adv env NOTIFY_SOCKET="$sock" RUNTIME_DIRECTORY="$rt" WATCHDOG_USEC=1000000 JOURNAL_STREAM="$journal" \
  "$BEACON_TX" start --device hci0 --controller extended --config "$REPO/Config/kiosk.json"
wait_until 15 _has_line "$notes" 'READY=1' || fail "no READY=1: $(tail -n 3 "$E2E_OUT/adv.log")"
expect_last_adv_enable hci0 enable

step "status while on air"
rc=0
RUNTIME_DIRECTORY=$rt "$BEACON_TX" status --device hci0 > "$E2E_OUT/status-on.txt" || rc=$?
cat "$E2E_OUT/status-on.txt"
[ "$rc" = 0 ] || fail "status exited $rc while on air, want 0"
_has_line "$E2E_OUT/status-on.txt" "hci0: on air since " || fail "status does not say on air"
_has_line "$E2E_OUT/status-on.txt" "  kiosk-lobby E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm" ||
  fail "status does not list the beacon"

_two_watchdogs() { local n=0 l; while IFS= read -r l; do [ "$l" = WATCHDOG=1 ] && n=$((n + 1)); done < "$notes"; [ $n -ge 2 ]; }
wait_until 5 _two_watchdogs || fail "fewer than 2 WATCHDOG=1 in 5 s with WATCHDOG_USEC=1000000"

step "SIGTERM"
stop_bg adv TERM
cat "$E2E_OUT/adv.log"
[ "$BG_RC" = 0 ] || fail "exit code $BG_RC after SIGTERM, want 0"
expect_last_adv_enable hci0 disable
wait_until 5 _has_line "$notes" 'STOPPING=1' || fail "no STOPPING=1"
stop_bg notify TERM

step "what the listener recorded (WATCHDOG=1 left out)"
got=$(while IFS= read -r l; do [[ $l == '#'* || $l == WATCHDOG=1 ]] || echo "$l"; done < "$notes")
want="READY=1 | STATUS=1 beacon on air on hci0 (extended set 0)
STOPPING=1 | STATUS=stopping: advertising off on hci0"
echo "$got"
[ "$got" = "$want" ] || fail "notify messages differ; got: $got"

step "journal priorities on stderr"
while IFS= read -r l; do
  [[ $l == '<'[0-7]'>'* ]] || fail "stderr line without a priority prefix: $l"
done < "$E2E_OUT/adv.log"
_has_line "$E2E_OUT/adv.log" "<6>beacon-tx: signal 15: advertising stopped on hci0" || fail "no <6> stop note"

step "status after the stop"
[ ! -e "$rt/hci0.json" ] || fail "state file left after a clean stop"
rc=0
RUNTIME_DIRECTORY=$rt "$BEACON_TX" status --device hci0 > "$E2E_OUT/status-off.txt" || rc=$?
cat "$E2E_OUT/status-off.txt"
[ "$rc" = 3 ] || fail "status exited $rc after the stop, want 3"
