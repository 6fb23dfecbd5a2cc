# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e/lib.sh: helpers for e2e scenarios. A scenario starts with
#     . "$(dirname "$0")/../lib.sh"
# and runs as root in the guest with two fresh, powered btvirt controllers
# hci0 and hci1 that hear each other's advertising. Any non-zero exit is a FAIL;
# `fail MSG` gives the FAIL line its reason (otherwise the command that stopped
# the scenario under `set -e` is named). See Tests/e2e/README.md.
#
# Variables: BEACON_TX (the binary), REPO, E2E_DIR, E2E_OUT (this scenario's log
# folder, kept on the host), E2E_SNOOP (btmon capture of every controller).
# Functions (details above each one):
#   fail MSG                         step MSG                  need_beacon_tx
#   hci_cmd hciN OGF OCF [B...]      expect_status ST hciN OGF OCF [B...]
#   btmgmt_cmd INDEX ARGS...         bdaddr hciN               wait_until SECS CMD...
#   scan_start hciN [OPTS]           scan_stop [hciN]          scan_reports [hciN]
#   expect_adv_data [-s hciN] [-a ADDR] [-t SECS] HEX
#   expect_no_adv_data [-s hciN] [-a ADDR] [-t SECS] HEX
#   hci_log [--since TEXT] [hciN]    hci_mark TEXT             btmon_text
#   last_adv_enable hciN
#   expect_hci_command hciN OPCODE [PARAMS_HEX]        expect_no_hci_command hciN OPCODE
#   expect_last_adv_enable hciN enable|disable
#   run_bg NAME CMD...               stop_bg NAME [SIGNAL]     wait_bg NAME [SECS]
#   bg_running NAME                  controllers_restart [N]
#   bluetoothd_start                 bluetoothd_stop           scan_clear hciN
#   kiosk_start NAME ARGS...         kiosk_expect_alive NAME   hci_devreset hciN
#
# Under TCG every exec costs 0.1-0.5 s, so the helpers use bash builtins where they
# can (no grep/awk/tr/sleep in loops).
set -Eeuo pipefail

E2E_DIR=${E2E_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
REPO=${E2E_REPO:-$(cd "$E2E_DIR/../.." && pwd)}
BEACON_TX=${BEACON_TX:-$REPO/.build/debug/beacon-tx}
E2E_OUT=${E2E_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/e2e-scenario.XXXXXX")}
E2E_SNOOP=$E2E_OUT/btmon.snoop
BG_RC=
E2E_PY=(/usr/bin/python3 -S)        # Debian's: has AF_BLUETOOTH (pyenv's has not); -S: faster start
export E2E_DIR REPO BEACON_TX E2E_OUT E2E_SNOOP BG_RC

# fail MSG: ends the scenario as FAIL with MSG as the reason (the first reason is kept).
fail() {
  [ -s "$E2E_OUT/reason" ] || printf '%s\n' "$*" > "$E2E_OUT/reason"
  echo "FAIL: $*" >&2
  exit 1
}

# step MSG: a visible marker in the scenario's stdout log.
step() { echo "== $*"; }

# need_beacon_tx: fails unless the beacon-tx binary exists.
need_beacon_tx() {
  [ -x "$BEACON_TX" ] || fail "beacon-tx binary not found at $BEACON_TX (swift build, or set BEACON_TX)"
}

_hex() { local h=$*; h=${h//[[:space:]:]/}; echo "${h,,}"; }

# _sleep SECS: sleep without an exec (a timed read on a FIFO nobody writes to).
_sleep() {
  if [ -z "${_E2E_SLEEP_FD:-}" ]; then
    local f=/tmp/.e2e-sleep.$$.$RANDOM
    mkfifo "$f" && exec {_E2E_SLEEP_FD}<> "$f" && rm -f "$f"
  fi
  read -r -t "$1" -u "$_E2E_SLEEP_FD" _ || true
}

_us() {   # _us SECS: seconds (may have a fraction) -> microseconds, in _US
  local s=$1 i f
  i=${s%%.*}; f=000000
  [[ $s == *.* ]] && f=${s#*.}000000
  _US=$(( 10#${i:-0} * 1000000 + 10#${f:0:6} ))
}

# wait_until SECS CMD...: runs CMD every 0.1 s until it succeeds; false after SECS.
wait_until() {
  local end
  _us "$1"; shift
  end=$(( ${EPOCHREALTIME//[.,]/} + _US ))
  until "$@"; do
    [ "${EPOCHREALTIME//[.,]/}" -lt "$end" ] || return 1
    _sleep 0.1
  done
}

# The helpers that read a log line by line turn xtrace off inside (`local -`): under TCG a traced
# line per log line made one poll take seconds.
_has_line() {   # _has_line FILE PREFIX: FILE has a line starting with PREFIX
  local - l
  set +x
  [ -e "$1" ] || return 1
  while IFS= read -r l; do [[ $l == "$2"* ]] && return 0; done < "$1"
  return 1
}

# bdaddr hciN: prints the controller's public address (00:AA:01:00:00:00).
bdaddr() {
  local a b c
  while read -r a b c _; do
    [ "$a $b" = "BD Address:" ] && { echo "$c"; return 0; }
  done < <(hciconfig "$1")
  fail "bdaddr $1: no address in hciconfig output"
}

# hci_cmd hciN OGF OCF [BYTE...]: sends one command with `hcitool cmd` and prints the
# status the controller returned ("0x00", "0x0c", ...). hcitool's output goes to stderr.
# Fails the scenario if no Command Complete/Status came back.
hci_cmd() {
  local dev=$1 out line ev='' st='' b
  shift
  out=$(hcitool -i "$dev" cmd "$@" 2>&1) || fail "hcitool -i $dev cmd $*: $out"
  printf '%s\n' "$out" >&2
  while IFS= read -r line; do
    case $line in
      '> HCI Event: 0x0e'*) ev=e ;;
      '> HCI Event: 0x0f'*) ev=f ;;
      *[0-9A-Fa-f]*)
        [ -n "$ev" ] || continue
        read -r -a b <<< "$line"
        if [ $ev = e ]; then st=${b[3]:-}; else st=${b[0]:-}; fi
        break ;;
    esac
  done <<< "$out"
  [ -n "$st" ] || fail "hcitool -i $dev cmd $*: no Command Complete/Status in: $out"
  echo "0x${st,,}"
}

# expect_status STATUS hciN OGF OCF [BYTE...]: hci_cmd, failing unless it returned STATUS.
expect_status() {
  local want=$1 got
  shift
  got=$(hci_cmd "$@")
  [ "$got" = "$want" ] || fail "hcitool -i $1 cmd ${*:2}: status $got, expected $want"
}

# btmgmt_cmd INDEX ARGS...: runs `btmgmt --index INDEX ARGS` under script(1) (btmgmt
# prints nothing unless stdout is a tty) and prints its output without CRs. btmgmt
# exits 0 on most errors: check the output.
btmgmt_cmd() {
  local idx=$1 cmd out
  shift
  printf -v cmd '%q ' btmgmt --index "$idx" "$@"
  out=$(script -qc "$cmd" /dev/null < /dev/null)
  echo "${out//$'\r'/}"
}

# --- scanning with tools/rawscan.py (independent raw-socket scanner) -----------
# scan_start hciN [--active] [--mode legacy|extended]: starts scanning on hciN and returns
# once the controller has accepted scan enable. Start it BEFORE enabling advertising:
# btvirt only forwards advertising on events (advertising enable, scan enable).
# Reports go to $E2E_OUT/scan-hciN.txt, one "report ... data=HEX" line each.
scan_start() {
  local dev=$1 log=$E2E_OUT/scan-$1.txt pid
  shift
  [ ! -s "$E2E_OUT/.scan-$dev.pid" ] || fail "scan_start $dev: already scanning"
  # the log is appended to: only this scanner's own "# scanning" line (after line $skip) counts
  local skip=0 lines
  [ ! -e "$log" ] || { mapfile -t lines < "$log"; skip=${#lines[@]}; }
  "${E2E_PY[@]}" -u "$E2E_DIR/tools/rawscan.py" "$@" "$dev" >> "$log" 2>&1 &
  pid=$!
  echo "$pid" > "$E2E_OUT/.scan-$dev.pid"
  wait_until 40 _scan_ready "$log" "$pid" "$skip" || true
  _scan_started "$log" "$skip" || fail "scan_start $dev: scanner did not start: $(tail -n 3 "$log")"
}
_scan_ready() { _scan_started "$1" "$3" || _dead "$2"; }
_scan_started() {   # _scan_started LOG SKIP: a "# scanning" line after the first SKIP (builtins only)
  local -
  set +x
  local -a lines
  local l
  mapfile -t -s "$2" lines < "$1"
  for l in "${lines[@]}"; do [[ $l == '# scanning'* ]] && return 0; done
  return 1
}
_dead() {   # _dead PID: gone, or a zombie (a child we have not reaped yet is still "kill -0"-able)
  local st
  [ -r "/proc/$1/stat" ] && read -r st < "/proc/$1/stat" 2>/dev/null || return 0
  st=${st##*) }
  [ "${st:0:1}" = Z ]
}

# scan_stop [hciN]: stops one scanner (or all); they disable scanning on SIGTERM.
scan_stop() {
  local f pid pat=${1:-*}
  for f in "$E2E_OUT"/.scan-$pat.pid; do
    [ -s "$f" ] || continue
    read -r pid < "$f"
    kill -TERM "$pid" 2>/dev/null || true
    wait_until 5 _dead "$pid" || kill -KILL "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    rm -f "$f"
  done
}

# scan_reports [hciN]: prints the report lines received so far (all scanners or one).
scan_reports() {
  local f l pat=${1:-*}
  for f in "$E2E_OUT"/scan-$pat.txt; do
    [ -e "$f" ] || continue
    while IFS= read -r l; do [[ $l == report\ * ]] && echo "$l"; done < "$f"
  done
  return 0
}

_adv_args() {   # parses [-s hciN] [-a ADDR] [-t SECS] HEX into _S _A _T _H
  _S='' _A='' _T=$1 _H=''
  shift
  while [ $# -gt 0 ]; do
    case $1 in
      -s) _S=$2; shift 2 ;;
      -a) _A=$2; shift 2 ;;
      -t) _T=$2; shift 2 ;;
      *) _H+=$1; shift ;;
    esac
  done
  _H=$(_hex "$_H")
}
_adv_seen() {
  local f l pat=${_S:-*}
  for f in "$E2E_OUT"/scan-$pat.txt; do
    [ -e "$f" ] || continue
    while IFS= read -r l; do
      [[ $l == report\ *" data=$_H" ]] || continue
      [ -z "$_A" ] || [[ $l == *" addr=$_A "* ]] || continue
      return 0
    done < "$f"
  done
  return 1
}

# expect_adv_data [-s hciN] [-a ADDR] [-t SECS] HEX: waits (default 5 s) for a report
# whose advertising data is exactly HEX (spaces and case ignored), from any scanner
# (or hciN's), optionally from advertiser ADDR.
expect_adv_data() {
  _adv_args 5 "$@"
  wait_until "$_T" _adv_seen && return 0
  fail "no advertising report with data $_H${_A:+ from $_A} within ${_T}s; got: $(scan_reports "$_S" | sed 's/.* addr=\([^ ]*\).* data=/\1 /' | sort | uniq -c | head -n 5 | tr -s ' \n' ' ')"
}

# expect_no_adv_data [-s hciN] [-a ADDR] [-t SECS] HEX: fails if such a report arrives
# within SECS (default 3 s; it always waits that long).
expect_no_adv_data() {
  _adv_args 3 "$@"
  if wait_until "$_T" _adv_seen; then fail "unexpected advertising report with data $_H"; fi
}

# --- what was sent: the btmon capture ($E2E_SNOOP) ------------------------------
# hci_log [--since TEXT] [hciN]: one line per HCI command sent since the scenario started
# (by anyone: beacon-tx, hcitool, the kernel), oldest first:  "hci0 cmd 0x200a 01 status=0x00"
# (params as hex, "-" if none; status=none if no Command Complete/Status was seen);
# --since TEXT: only after the last `hci_mark TEXT`. It first syncs with btmon (a marker
# through the kernel's monitor stream), so everything sent before the call is in.
hci_log() {
  [ -s "$E2E_SNOOP" ] || fail "no btmon capture at $E2E_SNOOP"
  "${E2E_PY[@]}" "$E2E_DIR/tools/hcilog.py" --settle "$E2E_SNOOP" "$@"
}

# hci_mark TEXT: puts TEXT into the btmon capture (a "= e2e: TEXT" line in btmon.txt), to
# read what came after it with `hci_log --since TEXT`.
hci_mark() { "${E2E_PY[@]}" "$E2E_DIR/tools/hcilog.py" --mark "$*"; }

# btmon_text: the capture decoded by btmon (text; beware btmon's iBeacon quirks).
btmon_text() {
  if [ -s "$E2E_OUT/btmon.txt" ]; then cat "$E2E_OUT/btmon.txt"; else btmon -r "$E2E_SNOOP" 2>/dev/null; fi
}

# last_adv_enable hciN: "enable" or "disable" for the last LE Set Advertising Enable
# (0x200a) or LE Set Extended Advertising Enable (0x2039) sent to hciN, "none" if none.
last_adv_enable() {
  local - op params v=none log
  set +x
  log=$(hci_log "$1") || fail "hci_log $1 failed"
  while read -r _ _ op params _; do
    case $op in 0x200a|0x2039) if [[ $params == 00* ]]; then v=disable; else v=enable; fi ;; esac
  done <<< "$log"
  echo "$v"
}

# expect_last_adv_enable hciN enable|disable
expect_last_adv_enable() {
  local got
  got=$(last_adv_enable "$1")
  [ "$got" = "$2" ] || fail "last advertising enable command on $1 was '$got', expected '$2'"
}

_sent() {   # _sent hciN OPCODE [PARAMS_HEX]: was such a command sent?
  local - want_op=${2,,} want_p op params found=1 log
  set +x
  want_p=$(_hex "${*:3}")
  # not `< <(hci_log ...)`: a failing hci_log must fail the scenario, not read as "not sent"
  log=$(hci_log "$1") || fail "hci_log $1 failed"
  while read -r _ _ op params _; do
    [ "$op" = "$want_op" ] && { [ -z "$want_p" ] || [ "$params" = "$want_p" ]; } && found=0
  done <<< "$log"
  return $found
}

# expect_hci_command hciN OPCODE [PARAMS_HEX]: some command OPCODE (e.g. 0x2036) was sent
# to hciN (with exactly these params, if given).
expect_hci_command() {
  _sent "$@" || fail "no command $2${3:+ with params $(_hex "${*:3}")} sent to $1"
}

# expect_no_hci_command hciN OPCODE: no command OPCODE was sent to hciN.
expect_no_hci_command() {
  if _sent "$1" "$2"; then fail "command $2 was sent to $1"; fi
}

# --- background processes --------------------------------------------------------
# run_bg NAME CMD...: starts CMD in the background, stdout+stderr in $E2E_OUT/NAME.log.
run_bg() {
  local name=$1
  shift
  "$@" > "$E2E_OUT/$name.log" 2>&1 &
  echo $! > "$E2E_OUT/.bg-$name.pid"
}

# notify_start [ARG...]: a stand-in for systemd's notify socket, tools/notify-listen.py as
# background process "notify" (ARGs such as --clock passed on); returns once it listens. Sets `sock`
# (for NOTIFY_SOCKET: in the guest's tmpfs, as 9p (E2E_OUT) cannot hold a socket) and `notes` (what
# it received, one line each). 40 s: a Python start in the TCG guest once took over 10 s under load.
notify_start() {
  sock=/tmp/beacon-tx-notify.$$.sock
  notes=$E2E_OUT/notify.txt
  run_bg notify "${E2E_PY[@]}" "$E2E_DIR/tools/notify-listen.py" "$sock" "$notes" "$@"
  wait_until 40 _has_line "$notes" '# listening' || fail "notify listener did not start: $(cat "$E2E_OUT/notify.log")"
}

# stop_bg NAME [SIGNAL]: sends SIGNAL (default TERM) to NAME, waits up to 10 s (then
# SIGKILL) and sets BG_RC to its exit code (0, or 143 = killed by SIGTERM, ...).
# Call it directly, not inside $(...): only this shell can collect the exit code.
stop_bg() {
  local pid
  pid=$(_bg_pid "$1")
  kill "-${2:-TERM}" "$pid" 2>/dev/null || true
  wait_until 10 _dead "$pid" || kill -KILL "$pid" 2>/dev/null || true
  BG_RC=0; wait "$pid" || BG_RC=$?
  rm -f "$E2E_OUT/.bg-$1.pid"
}

# wait_bg NAME [SECS]: waits (default 10 s) for NAME to exit by itself and sets BG_RC;
# fails if it is still running then.
wait_bg() {
  local pid
  pid=$(_bg_pid "$1")
  wait_until "${2:-10}" _dead "$pid" || fail "$1 still running after ${2:-10}s: $(tail -n 2 "$E2E_OUT/$1.log")"
  BG_RC=0; wait "$pid" || BG_RC=$?
  rm -f "$E2E_OUT/.bg-$1.pid"
}

# expect_idle NAME: NAME still runs and sleeps: no more than 2 clock ticks of CPU (utime+stime) in 2 s.
expect_idle() {
  local st ticks0
  bg_running "$1" || fail "$1 exited while waiting: $(tail -n 3 "$E2E_OUT/$1.log")"
  read -r -a st < "/proc/$(_bg_pid "$1")/stat"
  ticks0=$((st[13] + st[14]))
  sleep 2
  read -r -a st < "/proc/$(_bg_pid "$1")/stat"
  [ $((st[13] + st[14] - ticks0)) -le 2 ] || fail "$1 used $((st[13] + st[14] - ticks0)) ticks in 2 s while waiting"
}

# bg_running NAME: true while NAME runs.
bg_running() { ! _dead "$(_bg_pid "$1")"; }

_bg_pid() {
  [ -s "$E2E_OUT/.bg-$1.pid" ] || fail "$1 was not started with run_bg"
  local pid
  read -r pid < "$E2E_OUT/.bg-$1.pid"
  echo "$pid"
}

# --- controllers -----------------------------------------------------------------
# controllers_up [N]: starts `btvirt -lN` (default 2) and powers hci0..hci(N-1) up.
controllers_up() {
  local n=${1:-2} i
  btvirt "-l$n" >> "$E2E_OUT/btvirt.log" 2>&1 &
  echo $! > "$E2E_OUT/.btvirt.pid"
  wait_until 10 test -e "/sys/class/bluetooth/hci$((n - 1))" ||
    { echo "controllers_up: btvirt -l$n made no hci$((n - 1))" >&2; return 1; }
  for ((i = 0; i < n; i++)); do
    hciconfig "hci$i" up || { echo "controllers_up: hciconfig hci$i up failed" >&2; return 1; }
  done
}

# controllers_down: stops btvirt and waits until its controllers are gone.
controllers_down() {
  local pid
  [ -s "$E2E_OUT/.btvirt.pid" ] || return 0
  read -r pid < "$E2E_OUT/.btvirt.pid"
  kill -TERM "$pid" 2>/dev/null || true
  wait_until 10 _no_ctrls || { echo "controllers_down: controllers still present" >&2; return 1; }
  rm -f "$E2E_OUT/.btvirt.pid"
}
_no_ctrls() { ! compgen -G '/sys/class/bluetooth/hci*' > /dev/null; }

# controllers_restart [N]: fresh controllers in the middle of a scenario (kills btvirt,
# starts a new one); they are again hci0..hci(N-1), powered. Stops the scanners.
controllers_restart() {
  scan_stop ""
  controllers_down || fail "controllers_restart: old controllers did not go away"
  controllers_up "${1:-2}" || fail "controllers_restart: new controllers did not come up"
}

# --- kiosk: bluetoothd next to beacon-tx -------------------------------------------
# bluetoothd_start: dbus-daemon and Debian's bluetoothd in the guest, as on every Debian or
# Raspberry Pi OS box; returns once `bluetoothctl show` says "Powered: yes".
bluetoothd_start() {
  mkdir -p /run/dbus /var/lib/bluetooth
  mountpoint -q /var/lib/bluetooth || mount -t tmpfs tmpfs /var/lib/bluetooth
  [ -S /run/dbus/system_bus_socket ] || dbus-daemon --system --fork
  if [ -n "${BLUEZ_ENV:-}" ]; then   # E2E_BLUEZ=trixie: Debian 13's bluetoothd with its own loader and libraries
    # shellcheck source=/dev/null
    . "$BLUEZ_ENV"
    run_bg bluetoothd "$BLUEZ_LAUNCHER" --library-path "$BLUEZ_LIB" "$BLUEZ_ROOT/usr/libexec/bluetooth/bluetoothd" -n
  else
    run_bg bluetoothd /usr/libexec/bluetooth/bluetoothd -n
  fi
  wait_until 30 _bt_powered || fail "bluetoothd did not report Powered: yes: $(tail -n 3 "$E2E_OUT/bluetoothd.log")"
}
_bt_powered() { [[ $(bluetoothctl show 2>/dev/null) == *"Powered: yes"* ]]; }

# bluetoothd_stop: SIGTERM (bluetoothd powers every adapter off as it stops).
bluetoothd_stop() { stop_bg bluetoothd TERM; }

# scan_clear hciN: forgets the reports received so far (the scanner appends), so the next
# expect_adv_data proves something heard after this point.
scan_clear() { : > "$E2E_OUT/scan-$1.txt"; }

# kiosk_start NAME ARGS...: a foreground `beacon-tx start ARGS` on hci0 as NAME; returns once it
# says it is on air (the "press Ctrl-C" line), within E2E_KIOSK_START_S seconds (default 15).
kiosk_start() {
  local name=$1
  shift
  run_bg "$name" "$BEACON_TX" start --device hci0 "$@"
  wait_until "${E2E_KIOSK_START_S:-15}" _has_line "$E2E_OUT/$name.log" 'beacon-tx: press Ctrl-C' ||
    fail "beacon-tx start did not start: $(tail -n 3 "$E2E_OUT/$name.log")"
  KIOSK_PID=$(_bg_pid "$name")
}

# kiosk_expect_alive NAME: the same process is still running (nothing restarted it).
kiosk_expect_alive() {
  bg_running "$1" || fail "beacon-tx exited: $(tail -n 3 "$E2E_OUT/$1.log")"
  [ "$(_bg_pid "$1")" = "$KIOSK_PID" ] || fail "beacon-tx is a different process"
}

# kiosk_rearmed NAME REASON: waits (10 s) for the re-arm line naming REASON, then prints it.
kiosk_rearmed() {
  wait_until 10 _log_has "$E2E_OUT/$1.log" "after: $2" || fail "no re-arm after '$2': $(tail -n 4 "$E2E_OUT/$1.log")"
  local l
  while IFS= read -r l; do [[ $l == *"after: $2"* ]] && echo "REARM $l"; done < "$E2E_OUT/$1.log"
  return 0
}
_log_has() { local l; while IFS= read -r l; do [[ $l == *"$2"* ]] && return 0; done < "$1"; return 1; }

# hci_devreset hciN: the HCIDEVRESET ioctl, as `beacon-tx start --reset` and other tools send it.
hci_devreset() {
  "${E2E_PY[@]}" -c 'import fcntl, socket, sys
s = socket.socket(socket.AF_BLUETOOTH, socket.SOCK_RAW, socket.BTPROTO_HCI)
fcntl.ioctl(s.fileno(), 0x400448CB, int(sys.argv[1][3:]))' "$1"
}

# a command that ends the scenario through `set -e` becomes the reason, unless fail() gave one
_e2e_err() {
  [ -s "$E2E_OUT/reason" ] ||
    echo "${BASH_SOURCE[1]##*/} line $1: '${2:0:200}' failed (exit $3)" > "$E2E_OUT/reason"
}
_e2e_exit() { scan_stop "" 2>/dev/null || true; }
trap '_e2e_err "$LINENO" "$BASH_COMMAND" "$?"' ERR
trap _e2e_exit EXIT
