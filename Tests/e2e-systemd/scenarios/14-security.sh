# SPDX-License-Identifier: Apache-2.0
# boot: main
# `systemd-analyze security` of the installed units, inside the booted guest: overall
# exposure at most 2.5 for beacon-tx.service and beacon-tx@hci1.service.
. "$BED/lib.sh"

package_installed || package_install
for u in beacon-tx.service beacon-tx@hci1.service; do
  out=$(systemd-analyze security --no-pager "$u" 2>&1) || true
  line=$(grep 'Overall exposure level' <<< "$out" || true)
  echo "$line"
  score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<< "$line")
  [ -n "$score" ] || fail "no score from systemd-analyze security $u: $(tail -n 3 <<< "$out")"
  note "systemd-analyze security $u: $score"
  awk -v s="$score" 'BEGIN { exit !(s <= 2.5) }' || fail "$u: exposure $score > 2.5"
done
