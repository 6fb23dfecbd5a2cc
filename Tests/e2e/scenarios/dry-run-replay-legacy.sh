#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# dry-run-replay-legacy: the hcitool lines of
#   beacon-tx start --dry-run --format hcitool --controller legacy ...
# (legacy LE advertising commands), replayed with bash as printed, make hci0
# advertise so that hci1 receives exactly the golden iBeacon advertising data.
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

FAMILY=legacy
# shellcheck source=SCRIPTDIR/dry-run-replay.inc
. "$(dirname "$0")/dry-run-replay.inc"
expect_hci_command hci0 0x2008 1e0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c500
expect_no_hci_command hci0 0x2036
