#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# nonroot-permission (issue 4e): as user nobody without capabilities, `start` exits 77 with the
# remedy (root, or the service's capabilities) and nothing on stdout; with CAP_NET_RAW and CAP_NET_ADMIN as ambient capabilities
# (what Config/beacon-tx.service grants) the same user advertises.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

step "nobody, no capabilities"
rc=0
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all \
  "$BEACON_TX" start --device hci0 --config "$REPO/Config/kiosk.json" > "$E2E_OUT/nocap.out" 2> "$E2E_OUT/nocap.err" || rc=$?
cat "$E2E_OUT/nocap.err"
[ "$rc" = 77 ] || fail "exit $rc, want 77"
[ ! -s "$E2E_OUT/nocap.out" ] || fail "stdout not empty"
grep -q 'run as root (sudo), or as the beacon-tx service, whose unit grants CAP_NET_RAW and CAP_NET_ADMIN' "$E2E_OUT/nocap.err" || fail "no remedy in: $(cat "$E2E_OUT/nocap.err")"
[ "$(wc -l < "$E2E_OUT/nocap.err")" = 1 ] || fail "more than one line on stderr"

step "nobody with ambient CAP_NET_RAW,CAP_NET_ADMIN (the systemd unit's grant)"
scan_start hci1
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+net_raw,+net_admin --ambient-caps=+net_raw,+net_admin \
  "$BEACON_TX" start --device hci0 --detach --config "$REPO/Config/kiosk.json" || fail "start with ambient caps exited $?"
addr=$(bdaddr hci0)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"
