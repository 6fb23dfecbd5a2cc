#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr extended
# onair-extended: the receiver's reports per second and the gaps between them (the 0-10 ms advDelay) of a
# 100 ms beacon on Zephyr's extended build (onair.inc).
# shellcheck source=SCRIPTDIR/onair.inc
. "$(dirname "$0")/onair.inc"
