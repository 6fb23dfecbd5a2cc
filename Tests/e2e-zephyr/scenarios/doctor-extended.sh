#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: zephyr extended
# doctor-extended: `doctor` on Zephyr's extended build: no FAIL, its adapter line (doctor.inc).
# shellcheck source=SCRIPTDIR/doctor.inc
. "$(dirname "$0")/doctor.inc"
