#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# e2e-timeout: 300
# rc-types-sets (issue 44): an iBeacon, an AltBeacon, an Eddystone-URL, an Eddystone-UID, raw data
# and the UID's Eddystone-TLM on six extended sets of RootCanal's DEFAULT controller; the receiver
# on hci1 hears each payload exactly as the dry run prints it, the TLM's counts rising (types.inc).
# Then the four identifying types and the TLM on sets: beacon-tx scan, beacontools, verify (_four).
. "$(dirname "$0")/rc.inc"
K_UUID=$RC_UUID
# shellcheck source=SCRIPTDIR/types.inc
. "$(dirname "$0")/types.inc"
rc_reset_hci0
_run sets "0 1 2 3 4 5" "--clock" --config "$E2E_OUT/types.json" --controller extended
_log_has "$E2E_OUT/sets.log" "sets 239, 238, 237, 236, 235, 234" || fail "not six sets: $(head -n 3 "$E2E_OUT/sets.log")"
_four four-sets "--clock" --controller extended
_log_has "$E2E_OUT/four-sets.log" "sets 239, 238, 237, 236, 235" || fail "the four and the TLM not on five sets: $(head -n 3 "$E2E_OUT/four-sets.log")"
