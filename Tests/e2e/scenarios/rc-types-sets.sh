#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-types-sets (issue 44): an iBeacon, an AltBeacon, an Eddystone-URL, an Eddystone-UID and raw
# data on five extended sets of RootCanal's DEFAULT controller; the receiver on hci1 hears each
# payload exactly as the dry run prints it (types.inc).
. "$(dirname "$0")/rc.inc"
K_UUID=$RC_UUID
# shellcheck source=SCRIPTDIR/types.inc
. "$(dirname "$0")/types.inc"
rc_reset_hci0
_run sets "0 1 2 3 4" "--clock" --config "$E2E_OUT/types.json" --controller extended
_log_has "$E2E_OUT/sets.log" "sets 239, 238, 237, 236, 235" || fail "not five sets: $(head -n 3 "$E2E_OUT/sets.log")"
