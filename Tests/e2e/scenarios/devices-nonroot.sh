#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# devices-nonroot (issue 10): as user nobody without capabilities, `devices` lists what the kernel
# tells anyone (name, address, bus, up/down), exits 0, and says which fields need CAP_NET_RAW
# (text: a note on stderr; JSON: "needCapNetRaw" lists the fields) instead of failing.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all "$BEACON_TX" "$@"; }

step "devices as nobody (text)"
rc=0
nobody devices > "$E2E_OUT/text.out" 2> "$E2E_OUT/text.err" || rc=$?
cat "$E2E_OUT/text.out" "$E2E_OUT/text.err"
[ "$rc" = 0 ] || fail "exit $rc, want 0"
for n in hci0 hci1; do
  grep -q "^$n  $(bdaddr $n)  up  Virtual  (HCI version, LE and advertising support need CAP_NET_RAW" "$E2E_OUT/text.out" ||
    fail "no unprivileged row for $n"
done
grep -q 'without CAP_NET_RAW only name, address, bus and up/down are shown' "$E2E_OUT/text.err" || fail "no note naming CAP_NET_RAW"
[ "$(wc -l < "$E2E_OUT/text.err")" = 1 ] || fail "more than one line on stderr"

step "devices --json as nobody"
nobody devices --json > "$E2E_OUT/devices.json" 2> "$E2E_OUT/json.err" || fail "devices --json exited $?"
cat "$E2E_OUT/devices.json"
"${E2E_PY[@]}" - "$E2E_OUT/devices.json" "$(bdaddr hci0)" "$(bdaddr hci1)" <<'PY' || fail "devices --json (unprivileged) is not as expected"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
for n, address in (("hci0", sys.argv[2]), ("hci1", sys.argv[3])):
    r = rows[n]
    assert r["address"] == address and r["up"] is True and r["bus"] == "Virtual", r
    assert "le" not in r and "hciVersion" not in r, r
    assert r["needCapNetRaw"] == ["hciVersion", "hciVersionCode", "manufacturer", "le", "legacyAdvertising",
                                  "extendedAdvertising", "maxAdvertisingDataLength", "advertisingSets"], r
PY

step "with CAP_NET_RAW the same user sees the controller fields"
setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=+net_raw --ambient-caps=+net_raw \
  "$BEACON_TX" devices --json > "$E2E_OUT/cap.json" || fail "devices --json with CAP_NET_RAW exited $?"
grep -q '"extendedAdvertising": true' "$E2E_OUT/cap.json" || fail "no controller fields with CAP_NET_RAW: $(cat "$E2E_OUT/cap.json")"
! grep -q needCapNetRaw "$E2E_OUT/cap.json" || fail "needCapNetRaw with CAP_NET_RAW"
