#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr legacy
# doctor-legacy: `doctor` on Zephyr's legacy build: no FAIL, its adapter line (doctor.inc).
# shellcheck source=SCRIPTDIR/doctor.inc
. "$(dirname "$0")/doctor.inc"
