#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# scan-legacy: `beacon-tx scan` on the receiver ranges the beacon `start` puts on Zephyr's legacy
# build (scan.inc).
# shellcheck source=SCRIPTDIR/scan.inc
. "$(dirname "$0")/scan.inc"
