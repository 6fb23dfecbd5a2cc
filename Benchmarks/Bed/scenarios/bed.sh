#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# bed (make bench, not a test): start latency, peak RSS and idle wake-ups of the static release
# binary against the hcitool recipe, in the e2e guest, binaries copied to the guest's tmpfs so
# that 9p is not what is measured. Results: bench.json in this scenario's results folder.
# shellcheck source=/dev/null
. "$E2E_DIR/lib.sh"
RELEASE=$REPO/.build/static/beacon-tx
[ -x "$RELEASE" ] || fail "no static release binary at $RELEASE (make release)"
dir=/tmp/bench && mkdir -p "$dir"
cp "$RELEASE" "$dir/beacon-tx"
cp "$(command -v hcitool)" "$dir/hcitool"
cp "$REPO/Config/kiosk.json" "$dir/kiosk.json"
grep -q "^tmpfs $dir\|^tmpfs /tmp " /proc/mounts || echo "bed: warning: /tmp is not a tmpfs here" >&2
/usr/bin/python3 -S "$REPO/Benchmarks/Bed/bed.py" "$E2E_OUT/bench.json" "$dir/beacon-tx" "$dir/hcitool" \
  "$dir/kiosk.json" 9 30
