#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-sighup (issue 8): SIGHUP re-reads the config: the changed beacon (minor 2 -> 4) is updated
# on its own set, the two others get no command at all; a bad file is logged and changes nothing.
. "$(dirname "$0")/kiosk.inc"
k_setup
cfg=/tmp/kiosk-sighup.json
k_conf() {
  cat > "$cfg" <<JSON
{ "beacons": [
  { "uuid": "$K_UUID", "major": 1, "minor": 1 },
  { "uuid": "$K_UUID", "major": 1, "minor": $1 },
  { "uuid": "$K_UUID", "major": 1, "minor": 3 } ] }
JSON
}
k_conf 2
kiosk_start kiosk --config "$cfg"
k_heard 1 2 3
hci_mark reload
k_conf 4
kill -HUP "$KIOSK_PID"
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'reloaded' || fail "no reload note: $(tail -n 3 "$E2E_OUT/kiosk.log")"
grep -q '2 unchanged, 1 updated, 0 added, 0 removed' "$E2E_OUT/kiosk.log" || fail "reload summary: $(tail -n 2 "$E2E_OUT/kiosk.log")"
scan_clear hci1
k_heard 1 4 3
# nothing was sent for sets 239 (minor 1) and 237 (minor 3)
while IFS= read -r l; do
  [[ $l == *" cmd 0x2039 "*ef* || $l == *" cmd 0x2039 "*ed* || $l == *" cmd 0x2036 ef"* || $l == *" cmd 0x2036 ed"* ]] &&
    fail "the unchanged beacons were touched: $l"
done < <(hci_log --since reload hci0)
echo '{ "beacons": [' > "$cfg"
kill -HUP "$KIOSK_PID"
wait_until 10 _log_has "$E2E_OUT/kiosk.log" 'the previous beacons stay on air' || fail "bad file not reported"
kiosk_expect_alive kiosk
stop_bg kiosk TERM
[ "$BG_RC" = 0 ] || fail "exit $BG_RC after SIGTERM"
