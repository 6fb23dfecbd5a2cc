#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# zero-address: on Zephyr's legacy build (no public address) the receiver hears our beacon from a
# random static address, never from 00:00:00:00:00:00 (zero-address.inc).
# shellcheck source=SCRIPTDIR/zero-address.inc
. "$(dirname "$0")/zero-address.inc"
