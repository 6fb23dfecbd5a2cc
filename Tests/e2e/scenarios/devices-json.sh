#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# devices-json (issue 4g): `beacon-tx devices --json` lists hci0 and hci1, up, LE, with extended
# advertising support, and each controller's address exactly as hciconfig prints it.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx

"$BEACON_TX" devices --json > "$E2E_OUT/devices.json" || fail "devices --json exited $?"
cat "$E2E_OUT/devices.json"
"${E2E_PY[@]}" - "$E2E_OUT/devices.json" "$(bdaddr hci0)" "$(bdaddr hci1)" <<'PY' || fail "devices --json does not describe hci0 and hci1 as expected"
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
assert set(rows) >= {"hci0", "hci1"}, rows.keys()
for n, address in (("hci0", sys.argv[2]), ("hci1", sys.argv[3])):
    r = rows[n]
    assert r["up"] is True and r["le"] is True, r
    assert r["extendedAdvertising"] is True and r["legacyAdvertising"] is True, r
    assert r["hciVersion"] == "5.0", r
    assert r["address"] == address, (r, address)
PY
