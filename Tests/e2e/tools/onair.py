#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""onair: what a receiver heard, from rawscan.py --clock logs (the e2e bed's on-air figures).

    onair.py SCANLOG [--since T] [--until T] [--addr ADDR] [--dwell MS] [--after T] [--json]
             [--tag NAME=HEX ...] [--any-addr]

Reads the `report ... t=SECONDS data=HEX` lines and keeps the iBeacons (Apple 4c000215), one
group per major.minor (and address), between --since and --until (wall-clock seconds; default
the first and the last report). Prints one line per beacon:

    beacon 1.2 addr=00:AA:01:00:00:00 reports=91 per_s=9.10 max_gap_s=0.212 first_s=0.104 runs=1

per_s = reports / window, max_gap_s = the longest time without a report of that beacon in the
window (its edges count), first_s = its first report after --since, runs = how many times it came
on air (consecutive reports of that beacon with no other beacon between and no silence over
RUN_GAP_S, 0.3 s: three advertising intervals at the 100 ms default). With --dwell MS (a
rotation): the receiver's runs (consecutive reports of one beacon, silences not counted) give the
dwell it measured,

    dwell runs=57 median_ms=201.3 p95_error_ms=18.0 configured_ms=200

(each run's start to the next run's start). --after T: `first_after_s=S`, the first iBeacon
report at or after T, relative to T. --gap-after T: the off-air gap an event at T caused (the
largest gap between two reports in T-1 .. T+10 s): `gap_off_s=G back_s=B`, its length and its end
relative to T (the first report heard again). --json prints one object with the same figures.
--tag NAME=HEX (repeatable): a report that is no iBeacon but whose data contains HEX (another
program's advertisement, a kernel instance) counts as the beacon NAME (`beacon NAME addr=...`).
--any-addr: one group per beacon whatever the address (`addr=*`): the kernel advertises its
non-connectable instances from a new random address each time it schedules one.
--phases NOTES: the phases of a `start --cycle` run, from its sd_notify messages as
notify-listen.py --clock stamped them on arrival (beacon-tx sends each STATUS once the change is
done on the controller): a STATUS that is not "cycle: off" starts an on phase, "cycle: off for"
an off phase, STOPPING=1 ends the last. One line per phase, instead of the lines above:

    phase off1 len_s=4.352 from=1796670853.790 to=1796670857.542 reports=0

len_s = from its STATUS to the next; reports = iBeacon reports (after the filters) inside the
phase: an on phase's whole length, an off phase's from PHASE_LEAD_S (0.5 s) after its STATUS to
PHASE_TAIL_S (0.6 s) before the next (a receiver may still hear the last advertising event, and the
next on phase is on air a little before its STATUS is sent).
"""
import argparse
import json
import re
import statistics
import sys

RUN_GAP_S = 0.3
PHASE_LEAD_S, PHASE_TAIL_S = 0.5, 0.6
LINE = re.compile(r"^report \S+ (\S+) type=\S+ addr=(\S+) .*?t=([0-9.]+) data=([0-9a-f]*)$")


def ibeacon(data):
    i = data.find("4c000215")
    if i < 0 or len(data) < i + 8 + 40:
        return None
    d = data[i + 8:]
    return "%d.%d" % (int(d[32:36], 16), int(d[36:40], 16))


def phases(path):
    """[(name, start, end)] from a notify-listen.py --clock log (see --phases)."""
    marks, n = [], {"on": 0, "off": 0}
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^t=([0-9.]+) (.*)$", line.strip())
            if not m:
                continue
            t, msg = float(m.group(1)), m.group(2)
            if "STOPPING=1" in msg:
                marks.append((None, t))
                break
            if "STATUS=" not in msg:
                continue
            kind = "off" if "cycle: off for" in msg else "on"
            if marks and marks[-1][0] and marks[-1][0].startswith(kind):
                continue   # another STATUS of the same phase
            n[kind] += 1
            marks.append(("%s%d" % (kind, n[kind]), t))
    return [(name, a, b) for (name, a), (_, b) in zip(marks, marks[1:]) if name]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--since", type=float)
    ap.add_argument("--until", type=float)
    ap.add_argument("--addr")
    ap.add_argument("--dwell", type=float)
    ap.add_argument("--after", type=float)
    ap.add_argument("--gap-after", type=float)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--tag", action="append", default=[])
    ap.add_argument("--any-addr", action="store_true")
    ap.add_argument("--phases")
    a = ap.parse_args()
    tags = [t.split("=", 1) for t in a.tag]
    heard = []   # (t, beacon, addr)
    with open(a.log, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if not m:
                continue
            t, addr, ib = float(m.group(3)), m.group(2), ibeacon(m.group(4))
            if ib is None:
                ib = next((name for name, hx in tags if hx.lower() in m.group(4)), None)
            if ib is None or (a.addr and addr != a.addr):
                continue
            if (a.since is not None and t < a.since) or (a.until is not None and t > a.until):
                continue
            heard.append((t, ib, "*" if a.any_addr else addr))
    heard.sort()
    if a.phases:
        ps = phases(a.phases)
        for name, start, end in ps:
            lo, hi = (start + PHASE_LEAD_S, end - PHASE_TAIL_S) if name.startswith("off") else (start, end)
            n = sum(1 for t, _, _ in heard if lo <= t <= hi)
            print("phase %s len_s=%.3f from=%.3f to=%.3f reports=%d" % (name, end - start, lo, hi, n))
        return 0 if ps else 1
    out = {"beacons": [], "window_s": 0.0}
    if not heard:
        print("no iBeacon reports" if not a.json else json.dumps(out))
        return 1
    lo = a.since if a.since is not None else heard[0][0]
    hi = a.until if a.until is not None else heard[-1][0]
    window = max(hi - lo, 1e-9)
    out["window_s"] = round(window, 3)
    groups, runs, prev = {}, {}, (None, 0.0)
    for t, ib, addr in heard:
        groups.setdefault((ib, addr), []).append(t)
        if (ib, addr) != prev[0] or t - prev[1] > RUN_GAP_S:
            runs[(ib, addr)] = runs.get((ib, addr), 0) + 1
        prev = ((ib, addr), t)
    for (ib, addr), ts in sorted(groups.items(), key=lambda kv: ((0, [int(x) for x in kv[0][0].split(".")]) if "." in kv[0][0] else (1, [kv[0][0]])) + (kv[0][1],)):
        edges = [lo] + ts + [hi]
        gap = max(b - x for x, b in zip(edges, edges[1:]))
        out["beacons"].append({"beacon": ib, "addr": addr, "reports": len(ts), "per_s": round(len(ts) / window, 2),
                               "max_gap_s": round(gap, 3), "first_s": round(ts[0] - lo, 3),
                               "runs": runs[(ib, addr)]})
    if a.dwell:
        starts, prev = [], None
        for t, ib, addr in heard:
            if (ib, addr) != prev:
                starts.append(t)
                prev = (ib, addr)
        d = [(y - x) * 1000 for x, y in zip(starts, starts[1:])][1:-1] or [0.0]
        errs = sorted(abs(x - a.dwell) for x in d)
        out["dwell"] = {"runs": len(d), "median_ms": round(statistics.median(d), 1),
                        "p95_error_ms": round(errs[min(len(errs) - 1, int(0.95 * len(errs)))], 1),
                        "configured_ms": a.dwell}
    if a.after is not None:
        later = [t for t, _, _ in heard if t >= a.after]
        out["first_after_s"] = round(later[0] - a.after, 3) if later else None
    if a.gap_after is not None:
        ts = [t for t, _, _ in heard if a.gap_after - 1 <= t <= a.gap_after + 10]
        gaps = [(y - x, y) for x, y in zip(ts, ts[1:]) if y >= a.gap_after]
        if gaps:
            g, end = max(gaps)
            out["gap_off_s"], out["back_s"] = round(g, 3), round(end - a.gap_after, 3)
    if a.json:
        print(json.dumps(out))
        return 0
    for b in out["beacons"]:
        print("beacon %s addr=%s reports=%d per_s=%.2f max_gap_s=%.3f first_s=%.3f runs=%d"
              % (b["beacon"], b["addr"], b["reports"], b["per_s"], b["max_gap_s"], b["first_s"], b["runs"]))
    if "dwell" in out:
        d = out["dwell"]
        print("dwell runs=%d median_ms=%.1f p95_error_ms=%.1f configured_ms=%g" % (d["runs"], d["median_ms"], d["p95_error_ms"], d["configured_ms"]))
    if "gap_off_s" in out:
        print("gap_off_s=%s back_s=%s" % (out["gap_off_s"], out["back_s"]))
    if "first_after_s" in out:
        print("first_after_s=%s" % out["first_after_s"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
