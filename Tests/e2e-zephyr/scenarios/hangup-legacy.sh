#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# e2e-timeout: 180
# hangup-legacy: hci0's UART controller dies and is unplugged while the receiver stays attached; it
# comes back: the same `start --device-timeout 60` re-arms by itself (hangup.inc).
ALONE=0
# shellcheck source=SCRIPTDIR/hangup.inc
. "$(dirname "$0")/hangup.inc"
