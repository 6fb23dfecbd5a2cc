#!/usr/bin/python3 -S
# SPDX-License-Identifier: Apache-2.0
"""The live half of `make bench`, run as root inside the e2e guest (Benchmarks/Bed/scenarios/bed.sh)
with btvirt controllers hci0 and hci1 and the binaries already copied to the guest's tmpfs.

Every figure is measured against a reference in the same run, alternating the two sides run by run
(A B, B A, A B, ...) so that a burst of load hits both alike; the medians are compared.

  start      wall time from launch to exit of `beacon-tx start --detach` (it exits once the
             controller has accepted advertising enable) against the hcitool recipe beacon-tx
             itself prints (`--dry-run --format hcitool --controller legacy`: four `hcitool cmd`
             launches: disable, parameters, data, enable), one launch after the other.
             Advertising is switched off (`beacon-tx stop`, untimed) before each run.
  version    `beacon-tx --version` (process start alone), against one `hcitool cmd` launch.
  rss        peak RSS (VmHWM at exit, under ptrace: see peak_rss) of `start --detach`, against the
             largest of the four hcitool launches; separate runs, as ptrace slows them.
  idle       a foreground single-beacon `start`, once advertising is on: voluntary and involuntary
             context switches (wake-ups) over IDLE seconds, and its peak RSS (VmHWM).

  kiosk      3 beacons rotating on one legacy set every 50 ms (`--beacon` x3 `--rotation 50`,
             `--interval 20`: the dwell must not be shorter than the interval):
             RSS after 50 and after 1,000 swaps (no growth expected), and the time between data
             swaps in the btmon capture ($E2E_SNOOP) against the 50 ms dwell. Skipped when the
             binary has no --beacon/--rotation.

Usage: bed.py OUT_JSON BEACON_TX HCITOOL CONFIG [RUNS] [IDLE_SECONDS]
Writes OUT_JSON and prints a summary.
"""
import ctypes
import json
import os
import statistics
import subprocess
import sys
import time


def run(argv):
    """Runs argv to completion; returns (wall seconds, exit code)."""
    devnull = os.open(os.devnull, os.O_RDWR)
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, devnull, 0), (os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status = os.waitpid(pid, 0)
    wall = time.perf_counter() - start
    os.close(devnull)
    return wall, os.waitstatus_to_exitcode(status)


_libc = ctypes.CDLL(None, use_errno=True)
_libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
_libc.ptrace.restype = ctypes.c_long
PTRACE_TRACEME, PTRACE_CONT, PTRACE_SETOPTIONS = 0, 7, 0x4200
PTRACE_O_TRACEEXIT, PTRACE_EVENT_EXIT = 0x40, 6


def peak_rss(argv):
    """Peak RSS (VmHWM, KiB) of argv's own image, read at its exit under ptrace. Not wait4's
    ru_maxrss: that also counts the memory the process had before exec (here, Python's)."""
    pid = os.fork()
    if pid == 0:
        try:
            devnull = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(devnull, fd)
            _libc.ptrace(PTRACE_TRACEME, 0, None, None)
            os.execv(argv[0], argv)          # stops with SIGTRAP once the new image is loaded
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    _libc.ptrace(PTRACE_SETOPTIONS, pid, None, PTRACE_O_TRACEEXIT)
    _libc.ptrace(PTRACE_CONT, pid, None, None)
    hwm = None
    while True:
        _, status = os.waitpid(pid, 0)
        if not os.WIFSTOPPED(status):
            break
        if status >> 16 == PTRACE_EVENT_EXIT:
            hwm = int(proc_status(pid)["VmHWM"])
            signal = 0
        else:
            signal = os.WSTOPSIG(status)
        _libc.ptrace(PTRACE_CONT, pid, None, signal or None)
    code = os.waitstatus_to_exitcode(status)
    if code != 0 or hwm is None:
        raise SystemExit("bed: %s exited %d under ptrace" % (" ".join(argv), code))
    return hwm


def must(argv):
    wall, code = run(argv)
    if code != 0:
        raise SystemExit("bed: %s exited %d" % (" ".join(argv), code))
    return wall


def hcitool_recipe(beacon_tx, hcitool, config):
    out = subprocess.run([beacon_tx, "start", "--config", config, "--device", "hci0", "--dry-run",
                          "--format", "hcitool", "--controller", "legacy"],
                         check=True, capture_output=True, text=True).stdout
    recipe = [line.split()[1:] for line in out.splitlines() if line.startswith("hcitool ")]
    if len(recipe) != 4:
        raise SystemExit("bed: expected a 4-command hcitool recipe, got %r" % out)
    return [[hcitool] + args for args in recipe]


def alternate(runs, a, b):
    """Calls a() and b() runs times each, alternating which goes first; returns both result lists."""
    ra, rb = [], []
    for i in range(runs):
        if i % 2 == 0:
            ra.append(a()); rb.append(b())
        else:
            rb.append(b()); ra.append(a())
    return ra, rb


def proc_status(pid):
    fields = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.split()[0] if value.split() else ""
    return fields


def idle(beacon_tx, config, seconds):
    """Foreground start; once it says advertising is on, counts its context switches for `seconds`."""
    p = subprocess.Popen([beacon_tx, "start", "--device", "hci0", "--config", config],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    for line in p.stderr:
        if "press Ctrl-C" in line:
            break
        if time.monotonic() > deadline:
            break
    else:
        raise SystemExit("bed: foreground start ended before advertising: exit %s" % p.wait())
    time.sleep(1)   # let the last Command Complete settle
    before = proc_status(p.pid)
    time.sleep(seconds)
    after = proc_status(p.pid)
    p.terminate()
    p.wait(10)
    return {
        "seconds": seconds,
        "voluntary_ctxt_switches": int(after["voluntary_ctxt_switches"]) - int(before["voluntary_ctxt_switches"]),
        "nonvoluntary_ctxt_switches": int(after["nonvoluntary_ctxt_switches"]) - int(before["nonvoluntary_ctxt_switches"]),
        "peak_rss_kib": int(after["VmHWM"]),
        "exit_code": p.returncode,
    }


BTSNOOP_EPOCH_US = 0x00DCDDB30F2F8000   # btsnoop: microseconds since year 0; this is 1970


def commands_since(snoop, since_unix_s, index, opcode):
    """Timestamps (Unix s) of the HCI commands `opcode` sent to controller `index` after
    `since_unix_s`, from the btmon capture (btsnoop, datalink 2001: index and kind in the flags)."""
    import struct
    with open(snoop, "rb") as f:
        data = f.read()
    times, off = [], 16
    while off + 24 <= len(data):
        _orig, incl, flags, _drops, ts = struct.unpack_from(">IIIIQ", data, off)
        pkt = data[off + 24:off + 24 + incl]
        off += 24 + incl
        if len(pkt) < 3 or flags >> 16 != index or flags & 0xFFFF != 2:   # 2: command
            continue
        t = (ts - BTSNOOP_EPOCH_US) / 1e6
        if pkt[0] | pkt[1] << 8 == opcode and t >= since_unix_s:
            times.append(t)
    return times


def kiosk(beacon_tx, snoop, rotation_ms, swaps):
    """A foreground start with 3 beacons rotating on one legacy set every rotation_ms: its RSS
    after 50 swaps and after `swaps`, and the time between data swaps (LE Set Advertising Data on
    hci0, from the btmon capture) against rotation_ms."""
    usage = subprocess.run([beacon_tx, "start", "--help"], capture_output=True, text=True).stdout
    if "--beacon" not in usage or "--rotation" not in usage:
        return {"available": False, "why": "this beacon-tx has no --beacon/--rotation"}
    uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    argv = [beacon_tx, "start", "--device", "hci0", "--controller", "legacy", "--interval", "20",
            "--rotation", str(rotation_ms)]
    for minor in (1, 2, 3):
        argv += ["--beacon", "%s:1:%d" % (uuid, minor)]
    since = time.time()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    for line in p.stderr:
        if "Ctrl-C" in line or time.monotonic() > deadline:
            break
    else:
        raise SystemExit("bed: 3-beacon start ended before advertising: exit %s" % p.wait())
    on_air = time.time()
    time.sleep(50 * rotation_ms / 1000)
    early = proc_status(p.pid)
    # until the capture holds `swaps` data swaps (TCG is slower than the dwell at times)
    deadline = time.monotonic() + 3 * swaps * rotation_ms / 1000
    time.sleep(swaps * rotation_ms / 1000)
    while len(commands_since(snoop, on_air, 0, 0x2008)) < swaps and time.monotonic() < deadline:
        time.sleep(2)
    late = proc_status(p.pid)
    p.terminate()
    p.wait(10)
    time.sleep(1)   # btmon writes asynchronously
    swap_times = commands_since(snoop, on_air, 0, 0x2008)
    gaps = [(b - a) * 1000 for a, b in zip(swap_times, swap_times[1:])]
    errors = sorted(abs(g - rotation_ms) for g in gaps)
    pct = lambda q: errors[min(len(errors) - 1, int(q * len(errors)))] if errors else None
    return {
        "available": True, "argv": argv[1:], "rotation_ms": rotation_ms, "swaps_seen": len(swap_times),
        "rss_kib_after_50": int(early["VmRSS"]), "rss_kib_after_all": int(late["VmRSS"]),
        "hwm_kib_after_50": int(early["VmHWM"]), "hwm_kib_after_all": int(late["VmHWM"]),
        "dwell_ms_median": statistics.median(gaps) if gaps else None,
        "dwell_error_ms_median": pct(0.5), "dwell_error_ms_p95": pct(0.95),
        "exit_code": p.returncode,
    }


def main(argv):
    if len(argv) < 5:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 64
    out, beacon_tx, hcitool, config = argv[1:5]
    runs = int(argv[5]) if len(argv) > 5 else 9
    idle_seconds = float(argv[6]) if len(argv) > 6 else 30
    snoop = os.environ.get("E2E_SNOOP", "")
    recipe = hcitool_recipe(beacon_tx, hcitool, config)
    disable = recipe[0]
    stop = [beacon_tx, "stop", "--device", "hci0"]   # switches off whichever family is on

    def ours():
        must(stop)
        return must([beacon_tx, "start", "--device", "hci0", "--detach", "--config", config])

    def theirs():
        must(stop)
        return sum(must(c) for c in recipe)

    # warm-up (page cache, first-exec costs), untimed
    ours(); theirs(); must(stop)
    start_ours, start_theirs = alternate(runs, ours, theirs)
    must(stop)
    version_ours, version_theirs = alternate(runs, lambda: must([beacon_tx, "--version"]), lambda: must(disable))

    def rss_ours():
        must(stop)
        return peak_rss([beacon_tx, "start", "--device", "hci0", "--detach", "--config", config])

    def rss_theirs():
        must(stop)
        return max(peak_rss(c) for c in recipe)

    rss_ours_all, rss_theirs_all = alternate(runs, rss_ours, rss_theirs)
    must(stop)

    med = lambda xs: statistics.median(xs)
    result = {
        "runs": runs,
        "start_s": {"beacon_tx": med(start_ours), "hcitool_recipe": med(start_theirs),
                    "beacon_tx_all": [round(w, 4) for w in start_ours], "hcitool_recipe_all": [round(w, 4) for w in start_theirs]},
        "version_s": {"beacon_tx": med(version_ours), "hcitool_cmd": med(version_theirs)},
        "peak_rss_kib": {"beacon_tx_start_detach": med(rss_ours_all), "hcitool_cmd_max": med(rss_theirs_all),
                         "beacon_tx_version": peak_rss([beacon_tx, "--version"])},
        "idle": idle(beacon_tx, config, idle_seconds),
        "kiosk": kiosk(beacon_tx, snoop, 50, 1000) if snoop else {"available": False, "why": "no btmon capture"},
        "recipe": [" ".join(["hcitool"] + c[1:]) for c in recipe],
    }
    result["start_ratio"] = result["start_s"]["beacon_tx"] / result["start_s"]["hcitool_recipe"]
    result["rss_ratio"] = result["peak_rss_kib"]["beacon_tx_start_detach"] / result["peak_rss_kib"]["hcitool_cmd_max"]
    with open(out, "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
