# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Tests/e2e-zephyr/bed.sh: Zephyr controllers for the e2e guest, the controller kind
# "zephyr KIND" (a scenario's "# e2e-controllers: zephyr legacy|extended" line). Sourced by
# Tests/e2e/vm/guest-run (zb_up before each such scenario, zb_down after it) and by the Zephyr
# scenarios' lib.sh (the helpers below).
#
# Zephyr's Bluetooth LE controller (samples/bluetooth/hci_uart, v4.1.0) runs on the host as a Linux
# program on BabbleSim's simulated nRF52; its HCI UART is a pseudo-terminal that the host's agent
# (Tests/e2e-zephyr/agent.py) relays to a serial port of this guest. The guest attaches it the way a
# board's UART controller is attached, with btattach (H4). Each scenario gets a new simulation:
#   ttyS1  -> hci0: the controller under test, KIND legacy (hci_uart as shipped: legacy advertising
#             only) or extended (with LE Advertising Extensions, 4 sets)
#   ttyS2  -> hci1: the receiver, always the extended build (rawscan.py, `beacon-tx scan` run on it)
#   ttyS3     requests to the agent (zb_ctl): start a simulation, kill a controller, stop
# The two controllers hear each other over BabbleSim's simulated 2.4 GHz channel, its time paced
# to the wall clock (bs_device_handbrake).
#
#   zb_up KIND          new simulation, hci0 + hci1 attached, static addresses, powered (~5 s)
#   zb_down             both detached, simulation stopped
#   zb_ctl REQUEST...   one request to the agent; prints its answer
#   zb_attach N         btattach ttyS(N+1); it becomes hci<lowest free index>
#   zb_detach N         its btattach stopped: the kernel unregisters the controller
#   zb_address N ADDR   `btmgmt static-addr` (only while powered off)
#   zb_power N on|off   `btmgmt power`
#
# Traps: btattach needs -N (no flow control): the guest's 16550 would otherwise wait for CTS. The
# controller has no public address (BD_ADDR 00:00:00:00:00:00), so the kernel refuses to power it
# (EADDRNOTAVAIL) until it has a static address: zb_up gives hci0 C0:BE:AC:00:00:01 and hci1
# C0:BE:AC:00:00:02. A new simulation starts from simulated time 0 with both controllers fresh:
# BabbleSim cannot take a device back into a running simulation.
ZB_TTYS=(/dev/ttyS1 /dev/ttyS2)
ZB_CTL_TTY=/dev/ttyS3
ZB_ADDRS=(C0:BE:AC:00:00:01 C0:BE:AC:00:00:02)
ZB_STATE=/run/e2e-zephyr                 # btattach pids (guest tmpfs)

_zb_log() { printf '%(%T)T.%s zephyr: %s\n' -1 "${EPOCHREALTIME:11:3}" "$*"; }

# zb_ctl REQUEST...: sends "ID REQUEST" to the agent and prints the text of its "ID ok TEXT" answer;
# false (the answer on stderr) for "ID err TEXT" or no answer within 30 s.
zb_ctl() {
  local id=$$.$RANDOM fd line
  stty -F "$ZB_CTL_TTY" raw -echo -hupcl clocal 115200 || { echo "zb_ctl: stty $ZB_CTL_TTY failed" >&2; return 1; }
  exec {fd}<> "$ZB_CTL_TTY"
  printf '%s %s\n' "$id" "$*" >&"$fd"
  while IFS= read -r -t 30 -u "$fd" line; do
    line=${line%$'\r'}
    [[ $line == "$id "* ]] || continue
    exec {fd}>&-
    line=${line#"$id "}
    [[ $line == ok* ]] && { echo "${line#ok }"; return 0; }
    echo "zb_ctl $*: $line" >&2
    return 1
  done
  exec {fd}>&-
  echo "zb_ctl $*: no answer from the host's agent within 30 s" >&2
  return 1
}

# zb_hci_of TTY: the hciN attached to TTY (its sysfs parent), or nothing.
zb_hci_of() {
  local d
  for d in /sys/class/bluetooth/hci*; do
    [ -e "$d/device" ] || continue
    [[ $(readlink "$d/device") == */"${1##*/}" ]] && { echo "${d##*/}"; return 0; }
  done
  return 1
}
_zb_attached() { zb_hci_of "$1" > /dev/null; }
_zb_mgmt_ready() { [[ $(btmgmt_cmd "$1" info) == *"current settings:"* ]]; }

# zb_attach N: btattach -N -P h4 on ttyS(N+1) in the background; waits until the kernel has registered
# the controller and mgmt knows its index (the kernel's setup over the UART is done).
zb_attach() {
  local n=$1 tty=${ZB_TTYS[$1]} hci
  mkdir -p "$ZB_STATE"
  btattach -N -P h4 -S 115200 -B "$tty" >> "$E2E_OUT/btattach-${tty##*/}.log" 2>&1 &
  echo $! > "$ZB_STATE/btattach-${tty##*/}.pid"
  wait_until 20 _zb_attached "$tty" || { _zb_log "$tty: no controller registered within 20 s"; return 1; }
  hci=$(zb_hci_of "$tty")
  wait_until 30 _zb_mgmt_ready "${hci#hci}" || { _zb_log "$hci: mgmt does not know it within 30 s"; return 1; }
  _zb_log "$tty attached as $hci"
}

# zb_detach N: stops ttyS(N+1)'s btattach and waits until its controller is unregistered.
zb_detach() {
  local tty=${ZB_TTYS[$1]} f pid
  f=$ZB_STATE/btattach-${tty##*/}.pid
  if [ -s "$f" ]; then
    read -r pid < "$f"
    kill -TERM "$pid" 2> /dev/null || true
    wait_until 10 _dead "$pid" || kill -KILL "$pid" 2> /dev/null || true
    rm -f "$f"
  fi
  wait_until 10 _zb_not_attached "$tty" || { _zb_log "$tty: controller still registered"; return 1; }
}
_zb_not_attached() { ! _zb_attached "$1"; }

# zb_address N ADDR: the kernel's static address of hciN (btmgmt static-addr; hciN powered off).
zb_address() {
  local out
  out=$(btmgmt_cmd "$1" static-addr "$2")
  [[ $out == *"tatic address"*"set"* || $out == *"settings"* ]] || { _zb_log "hci$1 static-addr $2: $out"; return 1; }
}

# zb_power N on|off: btmgmt power; checks the new settings.
zb_power() {
  local out
  out=$(btmgmt_cmd "$1" power "$2")
  if [ "$2" = on ]; then
    [[ $out == *"settings: powered"* ]] || { _zb_log "hci$1 power on: $out"; return 1; }
  else
    [[ $out == *"Set Powered complete"* && $out != *"settings: powered"* ]] || { _zb_log "hci$1 power off: $out"; return 1; }
  fi
}

# zb_up KIND: a new simulation (hci0's controller: KIND), both controllers attached in order (hci0 then
# hci1), given static addresses and powered on.
zb_up() {
  local kind=$1 n out
  case $kind in legacy|extended) ;; *) _zb_log "unknown controller kind '$kind' (legacy or extended)"; return 1 ;; esac
  out=$(zb_ctl start "$kind" "$E2E_OUT") || return 1
  _zb_log "simulation: $out"
  for n in 0 1; do
    zb_attach "$n" || return 1
    [ "$(zb_hci_of "${ZB_TTYS[n]}")" = "hci$n" ] || { _zb_log "${ZB_TTYS[n]} became $(zb_hci_of "${ZB_TTYS[n]}"), not hci$n"; return 1; }
    zb_address "$n" "${ZB_ADDRS[n]}" || return 1
    zb_power "$n" on || return 1
  done
  _zb_log "up: $kind (hci0), extended (hci1)"
}

# zb_down: both controllers detached, the simulation stopped (also after a failed zb_up).
zb_down() {
  local rc=0 out
  zb_detach 1 || rc=1
  zb_detach 0 || rc=1
  out=$(zb_ctl stop) || rc=1
  _zb_log "down: simulation stopped ($out)"
  return $rc
}
