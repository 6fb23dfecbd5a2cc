#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# service-notify (issue 9): `beacon-tx start` under a stand-in for systemd: a notify listener as
# $NOTIFY_SOCKET (Tests/e2e/tools/notify-listen.py), $RUNTIME_DIRECTORY, $WATCHDOG_USEC and a
# $JOURNAL_STREAM naming its stderr. Through start, a power cycle of hci0, SIGHUP with a config
# that adds a beacon, and SIGTERM, the listener must record in order: READY=1 with the on-air
# STATUS; the waiting STATUS while hci0 is down; the on-air STATUS again once re-armed;
# RELOADING=1 (with MONOTONIC_USEC) then READY=1 with two beacons; STOPPING=1. WATCHDOG=1 arrives
# at a quarter of WATCHDOG_USEC; `beacon-tx status` exits 0 while on air (with the re-arm after the
# power cycle), 3 while hci0 is down and after the stop (state file removed); every stderr line
# carries a <N> priority prefix.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

notify_start

rt=$E2E_OUT/run
mkdir -p "$rt"
config=$E2E_OUT/kiosk.json
cp "$REPO/Config/kiosk.json" "$config"
: > "$E2E_OUT/adv.log"   # run_bg truncates it in place: same device and inode for JOURNAL_STREAM
journal=$(stat -c '%d:%i' "$E2E_OUT/adv.log")

_status() {   # _status NAME WANT_RC: beacon-tx status --device hci0 into $E2E_OUT/status-NAME.txt
  local rc=0
  RUNTIME_DIRECTORY=$rt "$BEACON_TX" status --device hci0 > "$E2E_OUT/status-$1.txt" || rc=$?
  cat "$E2E_OUT/status-$1.txt"
  [ "$rc" = "$2" ] || fail "status ($1) exited $rc, want $2"
}
_count() {   # _count PREFIX MIN: at least MIN lines of $notes start with PREFIX
  local n=0 l
  while IFS= read -r l; do [[ $l == "$1"* ]] && n=$((n + 1)); done < "$notes"
  [ $n -ge "$2" ]
}

step "start with NOTIFY_SOCKET, RUNTIME_DIRECTORY, WATCHDOG_USEC=1000000, JOURNAL_STREAM=$journal"
run_bg adv env NOTIFY_SOCKET="$sock" RUNTIME_DIRECTORY="$rt" WATCHDOG_USEC=1000000 JOURNAL_STREAM="$journal" \
  "$BEACON_TX" start --device hci0 --controller extended --config "$config"
wait_until 15 _has_line "$notes" 'READY=1' || fail "no READY=1: $(tail -n 3 "$E2E_OUT/adv.log")"
expect_last_adv_enable hci0 enable
_status on 0
_has_line "$E2E_OUT/status-on.txt" "hci0: on air since " || fail "status does not say on air"
_has_line "$E2E_OUT/status-on.txt" "  kiosk-lobby E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 2 power -59 dBm" ||
  fail "status does not list the beacon"
wait_until 5 _count WATCHDOG=1 2 || fail "fewer than 2 WATCHDOG=1 in 5 s with WATCHDOG_USEC=1000000"

step "power cycle: hci0 down"
hciconfig hci0 down
wait_until 10 _count 'STATUS=hci0 down' 1 || fail "no waiting STATUS while hci0 is down: $(tail -n 3 "$E2E_OUT/adv.log")"
_status down 3
_has_line "$E2E_OUT/status-down.txt" "hci0: nothing on air since " || fail "status does not say nothing on air"

step "power cycle: hci0 up again"
hciconfig hci0 up
wait_until 15 _count 'STATUS=1 beacon on air on hci0' 1 || fail "not re-armed after hci0 came up: $(tail -n 3 "$E2E_OUT/adv.log")"
expect_last_adv_enable hci0 enable
_status rearmed 0
grep -q '^  last re-arm ' "$E2E_OUT/status-rearmed.txt" || fail "status shows no re-arm"

step "SIGHUP with a second beacon in the config"
sed -i 's/"beacons": \[/"beacons": [\n    {"identifier": "kiosk-exit", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 3},/' "$config"
kill -HUP "$(_bg_pid adv)"
wait_until 15 _count 'READY=1' 2 || fail "no READY=1 after SIGHUP: $(tail -n 3 "$E2E_OUT/adv.log")"
_status reloaded 0
grep -q 'kiosk-exit E2C56DB5-DFFB-48D2-B060-D0F5A71096E0 major 1 minor 3' "$E2E_OUT/status-reloaded.txt" || fail "status misses the new beacon"

step "SIGTERM"
stop_bg adv TERM
cat "$E2E_OUT/adv.log"
[ "$BG_RC" = 0 ] || fail "exit code $BG_RC after SIGTERM, want 0"
expect_last_adv_enable hci0 disable
wait_until 5 _has_line "$notes" 'STOPPING=1' || fail "no STOPPING=1"
stop_bg notify TERM

step "what the listener recorded (WATCHDOG=1 left out, MONOTONIC_USEC as N)"
got=$(while IFS= read -r l; do
  [[ $l == '#'* || $l == WATCHDOG=1 ]] && continue
  [[ $l =~ ^(.*MONOTONIC_USEC=)[0-9]+(.*)$ ]] && l="${BASH_REMATCH[1]}N${BASH_REMATCH[2]}"
  echo "$l"
done < "$notes")
echo "$got"
want="READY=1 | STATUS=1 beacon on air on hci0 (extended set 239)
STATUS=hci0 down; waiting to re-arm
STATUS=1 beacon on air on hci0 (extended set 239)
RELOADING=1 | MONOTONIC_USEC=N | STATUS=reloading the configuration
READY=1 | STATUS=2 beacons on air on hci0 (extended sets 238, 239)
STOPPING=1 | STATUS=stopping: advertising off on hci0"
[ "$got" = "$want" ] || fail "notify messages differ from the expected order; got: $got"

step "journal priorities on stderr"
while IFS= read -r l; do
  [[ $l == '<'[0-7]'>'* ]] || fail "stderr line without a priority prefix: $l"
done < "$E2E_OUT/adv.log"
_has_line "$E2E_OUT/adv.log" "<6>beacon-tx: signal 15: advertising stopped on hci0" || fail "no <6> stop note"
_has_line "$E2E_OUT/adv.log" "<4>beacon-tx: " || fail "no <4> warning while hci0 was down"

step "status after the stop"
[ ! -e "$rt/hci0.json" ] || fail "state file left after a clean stop"
_status off 3
