# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e-systemd/lib.sh: helpers for the systemd bed's scenarios. A scenario starts with
#     # boot: main              (or late-adapter: see vm/prepare)
#     . "$BED/lib.sh"
# and runs as root from e2e-test.service in a guest whose PID 1 is systemd, with btvirt's
# hci0 + hci1 (main boot) powered by bluetoothd. Scenarios of one boot run in file-name
# order in the same guest: what one leaves (installed package, running unit) the next one
# finds, but each one sets up what it needs (kiosk_up, ...). Any non-zero exit is a FAIL;
# `fail MSG` gives the FAIL line its reason (otherwise the failing command is named).
#
# Variables: BED (the bed's copy in the run folder: lib.sh, tools/, config/), DEB (the package),
# E2E_OUT (this scenario's log folder, kept on the host), BOOT_DIR (this boot's folder).
# Functions (details above each one):
#   fail MSG          step MSG            note MSG           wait_until SECS CMD...
#   prop UNIT PROP    expect_prop UNIT PROP VALUE            unit_pid UNIT
#   package_installed package_install     kiosk_up [UNIT]    hci_up hciN
#   config_ids FILE   config_set FILE PATH=VALUE...          config_restore FILE
#   rx_start hciN     rx_stop             rx_clear           rx_ids
#   expect_heard SECS ID...               expect_silent SECS [ID...]
#   journal_mark      journal_since [journalctl options]
set -Eeuo pipefail

BED=${BED:?}
E2E_OUT=${E2E_OUT:?}
PY=(/usr/bin/python3 -S)            # Debian's: has AF_BLUETOOTH; -S: faster start
KIOSK=/etc/beacon-tx/kiosk.json

# fail MSG: ends the scenario as FAIL with MSG as the reason (the first reason is kept).
fail() {
  [ -s "$E2E_OUT/reason" ] || printf '%s\n' "$*" > "$E2E_OUT/reason"
  echo "FAIL: $*" >&2
  exit 1
}

# step MSG: a visible marker in the scenario's stdout.
step() { printf '== %(%T)T %s\n' -1 "$*"; }

# note MSG: a line the host prints on stderr after the PASS/FAIL line (timings, scores).
note() { echo "$*" | tee -a "$E2E_OUT/note"; }

# _sleep SECS: a sleep without an exec (each exec costs 0.1-0.5 s under TCG).
_sleep() {
  if [ -z "${_SLEEP_FD:-}" ]; then
    local f=/tmp/.e2e-sleep.$$.$RANDOM
    mkfifo "$f" && exec {_SLEEP_FD}<> "$f" && rm -f "$f"
  fi
  read -r -t "$1" -u "$_SLEEP_FD" _ || true
}

# now_us: the epoch in microseconds.
now_us() { echo "${EPOCHREALTIME//[.,]/}"; }

# wait_until SECS CMD...: runs CMD every 0.2 s until it succeeds; false after SECS.
wait_until() {
  local end=$(( $(now_us) + ${1%.*} * 1000000 ))
  shift
  until "$@"; do
    [ "$(now_us)" -lt "$end" ] || return 1
    _sleep 0.2
  done
}

# prop UNIT PROP: one property of UNIT (systemctl show --value).
prop() { systemctl show -p "$2" --value "$1"; }

# expect_prop UNIT PROP VALUE: fails unless UNIT's PROP is VALUE.
expect_prop() {
  local v
  v=$(prop "$1" "$2")
  [ "$v" = "$3" ] || fail "$1: $2=$v, expected $3 ($(prop "$1" ActiveState)/$(prop "$1" SubState), status '$(prop "$1" StatusText)')"
}

# unit_pid UNIT: its MainPID (0 when it has none).
unit_pid() { prop "$1" MainPID; }

# unit_log UNIT [N]: UNIT's last N (8) journal lines, for a failure message. Never fails itself
# (systemctl status exits 3 for a stopped unit, which the ERR trap would take for the failure).
unit_log() { journalctl --no-pager -q -n "${2:-8}" -u "$1" 2>&1 || true; }

package_installed() { dpkg-query -W -f='${Status}' beacon-tx 2> /dev/null | grep -q 'install ok installed'; }

# package_install: `apt-get install ./beacon-tx_*.deb`, as README tells an integrator.
package_install() {
  local d
  d=$(dirname "$DEB")
  # no sources: apt resolves the dependencies from what is installed (no package lists to read)
  (cd "$d" && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
     -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts=/dev/null "./${DEB##*/}") \
    > "$E2E_OUT/apt.log" 2>&1 || fail "apt-get install ./${DEB##*/}: $(tail -n 3 "$E2E_OUT/apt.log")"
  package_installed || fail "beacon-tx is not installed after apt-get install"
}

# kiosk_up [UNIT]: the package installed, its config the shipped one, and UNIT (default
# beacon-tx.service) active; prints nothing. For scenarios that follow others.
kiosk_up() {
  local u=${1:-beacon-tx.service}
  package_installed || package_install
  systemctl is-active -q "$u" || {
    systemctl reset-failed "$u" 2> /dev/null || true
    systemctl start "$u" || fail "systemctl start $u: $(unit_log "$u" 5)"
  }
}

# kiosk_heard: kiosk_up, then sets `pid` (beacon-tx.service's MainPID) and `ids` (the config's
# beacons), starts the receiver on hci1 and waits (10 s) until every beacon is heard there.
kiosk_heard() {
  kiosk_up
  pid=$(unit_pid beacon-tx.service)
  mapfile -t ids < <(config_ids "$KIOSK")
  rx_start hci1
  expect_heard 10 "${ids[@]}"
}

# kiosk_with_watchdog SEC: the packaged kiosk restarted with a runtime drop-in WatchdogSec=SEC (the
# shipped 30 s would make a watchdog scenario slow), removed again at the scenario's exit; on air.
kiosk_with_watchdog() {
  WATCHDOG_DROPIN=/run/systemd/system/beacon-tx.service.d/e2e-watchdog.conf
  package_installed || package_install
  mkdir -p "${WATCHDOG_DROPIN%/*}"
  printf '[Service]\nWatchdogSec=%s\n' "$1" > "$WATCHDOG_DROPIN"
  systemctl daemon-reload
  systemctl reset-failed beacon-tx.service 2> /dev/null || true
  systemctl restart beacon-tx.service
  trap '_watchdog_cleanup; _e2e_exit' EXIT
  expect_prop beacon-tx.service WatchdogUSec "$1"
  kiosk_heard
}
_watchdog_cleanup() { rm -f "$WATCHDOG_DROPIN"; systemctl daemon-reload; systemctl restart beacon-tx.service || true; }

# hci_up hciN [SECS]: waits (default 15 s) until hciN exists and is UP.
hci_up() { wait_until "${2:-15}" _hci_is_up "$1" || fail "$1 is not up: $(hciconfig "$1" 2>&1 | head -n 3)"; }
_hci_is_up() { [ -e "/sys/class/bluetooth/$1" ] && [[ $(hciconfig "$1" 2> /dev/null) == *"UP RUNNING"* ]]; }

# config_ids FILE: the beacons of FILE, one per line: UUIDHEX-MAJOR-MINOR (tools/config.py).
config_ids() { "${PY[@]}" "$BED/tools/config.py" ids "$1"; }

# template_config hciN MAJOR: writes /etc/beacon-tx/hciN.json for beacon-tx@hciN from the kiosk's
# config, on hciN, the majors MAJOR, MAJOR+1, …; sets `conf` (its path) and `ids` (its beacons).
template_config() {
  local i n sets=() tmp
  conf=/etc/beacon-tx/$1.json
  cp "$KIOSK" "$conf"
  n=$(config_ids "$conf" | wc -l)
  for ((i = 0; i < n; i++)); do sets+=("beacons.$i.major=$(($2 + i))"); done
  tmp=$("${PY[@]}" "$BED/tools/config.py" set "$conf" device="\"$1\"" "${sets[@]}")
  printf '%s\n' "$tmp" > "$conf"
  mapfile -t ids < <(config_ids "$conf")
}

# config_save FILE: keeps FILE as FILE.e2e-orig for config_restore, which also runs when the
# scenario ends (a failed scenario leaves the config as it found it).
SAVED_CONFIGS=()
config_save() {
  [ -e "$1.e2e-orig" ] || { cp -p "$1" "$1.e2e-orig" && SAVED_CONFIGS+=("$1"); }
}

# config_set FILE PATH=VALUE...: edits FILE in place (values are JSON: beacons.0.minor=102),
# after config_save.
config_set() {
  local f=$1 tmp
  shift
  config_save "$f"
  tmp=$("${PY[@]}" "$BED/tools/config.py" set "$f" "$@") || fail "config_set $f $*"
  printf '%s\n' "$tmp" > "$f"
}

# config_restore FILE: puts back what config_set found.
config_restore() { [ ! -e "$1.e2e-orig" ] || mv -f "$1.e2e-orig" "$1"; }

# --- the receiver: Tests/e2e/tools/rawscan.py on the other controller ---------------------
# rx_start hciN: an extended-scan receiver on hciN (raw HCI, independent of beacon-tx and
# bluetoothd) that re-enables its scan every 0.5 s (btvirt forwards adverts only on enable
# events) and is restarted when its controller goes away (power off, bluetoothd restart).
# Reports append to $E2E_OUT/rx-hciN.txt (with RX_CLOCK=1 each stamped t=EPOCH). Returns once it scans.
RX_DEV=
rx_start() {
  RX_DEV=$1
  hci_up "$1"
  RX_FILE=$E2E_OUT/rx-$1.txt
  : >> "$RX_FILE"
  (
    trap 'kill "$p" 2> /dev/null; exit 0' TERM
    while :; do
      "${PY[@]}" "$BED/tools/rawscan.py" --mode extended --reenable 0.5 ${RX_CLOCK:+--clock} "$1" >> "$RX_FILE" 2>&1 &
      p=$!
      rc=0; wait "$p" || rc=$?   # under set -e a bare failing wait ended the loop it is meant to keep
      echo "# receiver exited ($rc), restarting" >> "$RX_FILE"
      _sleep 0.5
    done
  ) &
  RX_PID=$!
  # (40 s: a Python start in the TCG guest once took over 10 s beside CI's ASan build)
  wait_until 40 _rx_scanning || fail "the receiver on $1 does not scan within 40 s: $(tail -n 3 "$RX_FILE")"
}
_rx_restarted() { local l; while IFS= read -r l; do [[ $l == '# receiver exited'* ]] && return 0; done < "$RX_FILE"; return 1; }
_rx_scanning() { local l; while IFS= read -r l; do [[ $l == '# scanning '* ]] && return 0; done < "$RX_FILE"; return 1; }

# rx_stop: stops the receiver (its scan is disabled on the way out).
rx_stop() {
  [ -n "${RX_PID:-}" ] || return 0
  kill -TERM "$RX_PID" 2> /dev/null || true
  wait "$RX_PID" 2> /dev/null || true
  RX_PID=
}

# rx_clear: forgets what was heard so far (the receiver appends), and marks the cut in
# rx-hciN.txt.all (the whole log).
rx_clear() {
  cat "$RX_FILE" >> "$RX_FILE.all"
  printf '# --- %(%T)T cleared\n' -1 >> "$RX_FILE.all"
  : > "$RX_FILE"
}

# rx_ids: the iBeacons heard since rx_clear, one per line (UUIDHEX-MAJOR-MINOR), sorted, unique.
rx_ids() {
  local l d r
  declare -A seen=()
  while IFS= read -r l; do
    [[ $l == report* && $l == *' data='* ]] || continue
    d=${l##* data=}
    [[ $d == *4c000215* ]] || continue
    r=${d#*4c000215}
    [ ${#r} -ge 40 ] || continue
    seen["${r:0:32}-$((16#${r:32:4}))-$((16#${r:36:4}))"]=1
  done < "$RX_FILE"
  [ ${#seen[@]} = 0 ] || printf '%s\n' "${!seen[@]}" | sort
}

# expect_heard SECS ID...: waits until every ID was heard since rx_clear; prints the time it took.
expect_heard() {
  local secs=$1 t0
  shift
  t0=$(now_us)
  wait_until "$secs" _heard_all "$@" ||
    fail "not heard within ${secs}s: $(_missing "$@"); heard: $(rx_ids | tr '\n' ' ')"
  HEARD_AFTER=$(_secs $(( $(now_us) - t0 )))
  echo "heard $* after ${HEARD_AFTER}s"
}
_heard_all() { local ids i; ids=$(rx_ids); for i in "$@"; do [[ $'\n'$ids$'\n' == *$'\n'$i$'\n'* ]] || return 1; done; }
_missing() { local ids i out=(); ids=$(rx_ids); for i in "$@"; do [[ $'\n'$ids$'\n' == *$'\n'$i$'\n'* ]] || out+=("$i"); done; echo "${out[*]}"; }
_secs() { printf '%d.%02d' $(($1 / 1000000)) $(($1 % 1000000 / 10000)); }

# expect_silent SECS [ID...]: from now on for SECS, none of the IDs (no iBeacon at all without
# IDs) is heard, while the receiver keeps scanning.
expect_silent() {
  local secs=$1 ids i
  shift
  rx_clear
  _sleep "$secs"
  ids=$(rx_ids)
  if [ $# = 0 ]; then
    [ -z "$ids" ] || fail "heard after it should have stopped: $(echo "$ids" | tr '\n' ' ')"
  else
    for i in "$@"; do
      [[ $'\n'$ids$'\n' != *$'\n'$i$'\n'* ]] || fail "still heard: $i"
    done
  fi
  kill -0 "$RX_PID" 2> /dev/null && ! _rx_restarted ||
    fail "the receiver did not scan all along while checking silence: $(tail -n 3 "$RX_FILE")"
  echo "silent for ${secs}s: ${*:-every iBeacon}"
}

# journal_mark: remembers the time; journal_since [OPTIONS] prints the journal since then.
# (Not --after-cursor: with matches such as -p err -u UNIT, systemd 252's journalctl skips the
# first matching entry when the cursor's own entry does not match.)
journal_mark() { JOURNAL_SINCE=@$EPOCHREALTIME; }
journal_since() { journalctl --since "$JOURNAL_SINCE" --no-pager -q "$@"; }

_e2e_err() {
  [ -s "$E2E_OUT/reason" ] ||
    echo "${BASH_SOURCE[1]##*/} line $1: '${2:0:200}' failed (exit $3)" > "$E2E_OUT/reason"
}
_e2e_exit() {
  local f
  rx_stop
  for f in "${SAVED_CONFIGS[@]}"; do
    [ -e "$f.e2e-orig" ] || continue
    config_restore "$f"
    # a unit that may run the edited config re-reads the restored one
    if [ "$f" = "$KIOSK" ] && systemctl is-active -q beacon-tx.service; then systemctl reload beacon-tx.service || true; fi
  done
}
trap '_e2e_err "$LINENO" "$BASH_COMMAND" "$?"' ERR
trap _e2e_exit EXIT
