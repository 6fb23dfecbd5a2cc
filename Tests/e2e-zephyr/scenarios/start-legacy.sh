#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# start-legacy: `start` on Zephyr's legacy build is heard by the receiver, SIGTERM and `stop` leave
# nothing on air, `verify` passes on the live capture (start.inc).
# shellcheck source=SCRIPTDIR/start.inc
. "$(dirname "$0")/start.inc"
