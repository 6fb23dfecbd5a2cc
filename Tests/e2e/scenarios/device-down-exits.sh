#!/bin/bash
# device-down-exits: a foreground `beacon-tx start` notices its controller going down (here
# `hciconfig hci0 down`, as bluetoothd power-cycling it would) and exits 69, so systemd's
# Restart=on-failure brings the beacon back instead of a silent "active" service.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

run_bg adv "$BEACON_TX" start --device hci0 --config "$REPO/Config/kiosk.json"
wait_until 10 _has_line "$E2E_OUT/adv.log" 'beacon-tx: press Ctrl-C' || fail "start did not start: $(tail -n 3 "$E2E_OUT/adv.log")"
hciconfig hci0 down
wait_bg adv 10
cat "$E2E_OUT/adv.log"
[ "$BG_RC" = 69 ] || fail "exit $BG_RC after the device went down, want 69"
grep -q 'hci0 went down while advertising' "$E2E_OUT/adv.log" || fail "no explanation in the log"
