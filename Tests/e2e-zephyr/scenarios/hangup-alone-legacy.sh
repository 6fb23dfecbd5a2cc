#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# e2e-timeout: 180
# hangup-alone-legacy: the same with no other controller while hci0 is gone (the receiver detached
# first): hci0 comes back down and address-less, is given its address and powered: re-armed (hangup.inc).
ALONE=1
# shellcheck source=SCRIPTDIR/hangup.inc
. "$(dirname "$0")/hangup.inc"
