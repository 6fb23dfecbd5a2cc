#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# dry-run-replay-extended: the hcitool lines of
#   beacon-tx start --dry-run --format hcitool --controller extended ...
# (an LE extended advertising set with a legacy PDU), replayed with bash as
# printed, make hci0 advertise so that hci1 receives exactly the golden iBeacon
# advertising data (btvirt delivers it as an LE Extended Advertising Report).
# shellcheck source=SCRIPTDIR/../lib.sh
. "$(dirname "$0")/../lib.sh"

FAMILY=extended
# shellcheck source=SCRIPTDIR/dry-run-replay.inc
. "$(dirname "$0")/dry-run-replay.inc"
expect_hci_command hci0 0x2036
expect_hci_command hci0 0x2037
expect_no_hci_command hci0 0x2006
