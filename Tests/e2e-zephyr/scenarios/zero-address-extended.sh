#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr extended
# zero-address-extended: the same on Zephyr's extended build (an advertising set) (zero-address.inc).
# shellcheck source=SCRIPTDIR/zero-address.inc
. "$(dirname "$0")/zero-address.inc"
