#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# kiosk-capacity (issue 8): with every advertising set of the controller taken by the kernel's
# instances (btmgmt add-adv), start fails with Memory Capacity Exceeded, names the remedies,
# exits 69 and leaves nothing of its own configured.
. "$(dirname "$0")/kiosk.inc"
for c in "le on" "power on" "add-adv -d 020106 1" "add-adv -d 020106 2" "add-adv -d 020106 3"; do
  # shellcheck disable=SC2086  # $c is the command's words
  echo "btmgmt $c: $(btmgmt_cmd 0 $c)"
done
set +e
out=$("$BEACON_TX" start --device hci0 --controller extended --beacon "$K_UUID:1:1" 2>&1)
rc=$?
set -e
echo "$out"
[ "$rc" = 69 ] || fail "exit $rc, want 69"
[[ $out == *"Memory Capacity Exceeded (0x07)"* ]] || fail "no capacity error: $out"
[[ $out == *"fewer beacons"* && $out == *"btmgmt"* ]] || fail "no remedy: $out"
