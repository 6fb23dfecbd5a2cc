#!/bin/bash
# dry-run-replay-extended: the hcitool lines of
#   beacon-tx start --dry-run --format hcitool --controller extended ...
# (an LE extended advertising set with a legacy PDU), replayed with bash as
# printed, make hci0 advertise so that hci1 receives exactly the golden iBeacon
# advertising data (btvirt delivers it as an LE Extended Advertising Report).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

FAMILY=extended
GOLDEN=0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5
need_beacon_tx

step "beacon-tx dry run ($FAMILY)"
args=(start --dry-run --format hcitool --uuid E2C56DB5-DFFB-48D2-B060-D0F5A71096E0
      --major 1 --minor 2 --controller "$FAMILY")
rc=0
"$BEACON_TX" "${args[@]}" > "$E2E_OUT/dry-run.sh" 2> "$E2E_OUT/dry-run.err" || rc=$?
cat "$E2E_OUT/dry-run.sh"
[ $rc = 0 ] || fail "beacon-tx ${args[*]}: exit $rc: $(tail -n 2 "$E2E_OUT/dry-run.err" | tr '\n' ' ')"
grep -q '^hcitool ' "$E2E_OUT/dry-run.sh" || fail "the dry run printed no hcitool line"
other=$(grep -v -e '^#' -e '^[[:space:]]*$' -e '^hcitool ' "$E2E_OUT/dry-run.sh" | head -n 1 || true)
[ -z "$other" ] || fail "the dry run printed a line that is neither hcitool nor a comment: $other"

step "replay on hci0 while hci1 scans"
scan_start hci1
bash -e "$E2E_OUT/dry-run.sh" > "$E2E_OUT/replay.log" 2>&1 ||
  fail "replaying the dry run failed: $(tail -n 2 "$E2E_OUT/replay.log" | tr '\n' ' ')"
addr=$(bdaddr hci0)   # (not inside the arguments: set -e ignores failures there)
expect_adv_data -s hci1 -a "$addr" "$GOLDEN"

step "what hci0 was sent (LE advertising commands)"
hci_log hci0 > "$E2E_OUT/hci0-commands.txt"
bad=''
while read -r _ _ op params status; do
  case $op in 0x2005|0x2006|0x2008|0x2009|0x200a|0x2035|0x2036|0x2037|0x2038|0x2039|0x203c|0x203d) ;; *) continue ;; esac
  echo "$op $params $status"
  # parameters, data and enable must have been accepted; a leading disable may be
  # refused by a fresh btvirt controller (0x0c legacy, 0x42 extended): that is fine
  case $op:$params in 0x200a:00|0x2039:00*|0x203c:*|0x203d:*) continue ;; esac
  [ "$status" = status=0x00 ] || bad+="$op $params $status; "
done < "$E2E_OUT/hci0-commands.txt"
[ -z "$bad" ] || fail "hci0 refused: $bad"
expect_last_adv_enable hci0 enable
expect_hci_command hci0 0x2036
expect_hci_command hci0 0x2037
expect_no_hci_command hci0 0x2006
