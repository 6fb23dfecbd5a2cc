#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# mgmt-instances (issue 23): beacon-tx reads the kernel's advertising instances over the control
# channel (MGMT Read Advertising Features): after `btmgmt add-adv 1` and `2` (the numbers bluetoothd
# and bluetoothctl take), `devices --json` lists instances 1 and 2 on hci0 and none on hci1; after
# `btmgmt rm-adv`, none. Linux 6.1 leaves out an instance numbered above the count of instances
# (its read_adv_features compares the number with adv_instance_cnt): `add-adv 3` alone is not
# listed, measured here too.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"
need_beacon_tx
bluetoothd_start
_instances() {   # _instances hciN: the kernelInstances of hciN in devices --json, as "1 3"
  "$BEACON_TX" devices --json > "$E2E_OUT/devices.json" || fail "devices --json exited $?"
  "${E2E_PY[@]}" - "$E2E_OUT/devices.json" "$1" <<'PY'
import json, sys
rows = {r["name"]: r for r in json.load(open(sys.argv[1]))}
r = rows[sys.argv[2]]
assert r["maxKernelInstances"] >= 1, r
print(" ".join(str(i) for i in r["kernelInstances"]))
PY
}
echo "btmgmt add-adv 3: $(btmgmt_cmd 0 add-adv -d 0201060303aafe 3)"
got=$(_instances hci0)
echo "instances listed with only instance 3 added: '$got'"
[ -z "$got" ] || [ "$got" = 3 ] || fail "hci0's kernel instances: '$got'"
echo "btmgmt rm-adv 3: $(btmgmt_cmd 0 rm-adv 3)"
for i in 1 2; do echo "btmgmt add-adv $i: $(btmgmt_cmd 0 add-adv -d 0201060303aafe "$i")"; done
[ "$(_instances hci0)" = "1 2" ] || fail "hci0's kernel instances: '$(_instances hci0)', not '1 2': $(cat "$E2E_OUT/devices.json")"
[ -z "$(_instances hci1)" ] || fail "hci1's kernel instances: '$(_instances hci1)', not none"
out=$("$BEACON_TX" devices)
echo "$out"
[[ $out == *"hci0 "*"kernel instances 2 of 3 in use (1, 2)"* ]] || fail "devices: $out"
for i in 1 2; do echo "btmgmt rm-adv $i: $(btmgmt_cmd 0 rm-adv "$i")"; done
[ -z "$(_instances hci0)" ] || fail "hci0's kernel instances after rm-adv: '$(_instances hci0)'"
