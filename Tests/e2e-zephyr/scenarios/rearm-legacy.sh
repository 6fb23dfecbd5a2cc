#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# rearm-legacy: a kiosk on Zephyr's legacy build re-arms in the same process after HCIDEVRESET,
# `hciconfig hci0 reset` and a `btmgmt power` off/on cycle (rearm.inc).
# shellcheck source=SCRIPTDIR/rearm.inc
. "$(dirname "$0")/rearm.inc"
