#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# e2e-controllers: rootcanal default
# rc-start-legacy (issue 20): `start --controller legacy` on RootCanal is heard at every advertising event,
# sends exactly its dry run, and `verify` passes on its live capture (see rc-start.inc).
FAMILY=legacy
# shellcheck source=SCRIPTDIR/rc-start.inc
. "$(dirname "$0")/rc-start.inc"
