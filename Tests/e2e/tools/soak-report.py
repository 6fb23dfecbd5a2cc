#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""soak-report: the figures of one soak run (Tests/e2e/scenarios/soak.inc), and its checks.

    soak-report.py --mode MODE --events FILE --scan FILE --notify FILE --watchdog-usec N
                   --a "HEX HEX HEX" --b "HEX HEX HEX" --window S [--minutes M] [--json FILE]

Reads the soak's events ("fault KIND T0 T1 RECOVERED|none CONFIG", "sample T RSS_KB FDS",
"process PID", "stop T EXIT [CHECKS [GONE_T]]"), the receiver's rawscan.py --clock log and the notify listener's --clock log, and
prints:
- faults and recoveries: per kind and overall, the time from a fault's end to every beacon of the
  config in force heard again (median, 95th percentile, worst), and the faults not recovered;
- polls: between a recovery and the next fault, windows of S seconds; the share in which the
  receiver heard every beacon of the config in force;
- stale identities: reports of the other config's beacons after a fault has recovered (a reload's
  old beacons, still on air);
- the longest gap between two WATCHDOG=1 (from the first to the stop);
- the resident set and open descriptors at the start, the middle and the end;
- the process: its pid, the same from the start to SIGTERM (the soak checks it after every fault);
- the exit after SIGTERM (and how long the process took to be gone), and reports of ours heard from
  its exit on (GONE_T, when recorded; its last command had completed then), else from 1 s after
  the SIGTERM. On a loaded TCG host the stop itself once took 1.1 s from the signal to the
  disable's completion, and the receiver rightly heard us until then.

Then one "FAILED: ..." line per check that does not hold: a fault unrecovered, a stale identity,
a beacon of ours after the stop, an exit other than 0, a watchdog gap of half of WATCHDOG_USEC or
more; for runs of 20 minutes or more also the resident set at the end above the middle's by over
10 %. Exit status 0 either way (the scenario reads the FAILED lines).
"""
import argparse
import bisect
import json
import math
import re
import statistics

REPORT = re.compile(r"^report \S+ \S+ .*?t=([0-9.]+) data=([0-9a-f]*)$")
STOP_GRACE_S = 1.0    # without GONE_T: reports from SIGTERM + this count
GONE_GRACE_S = 0.25   # with GONE_T: reports from the exit + this count (a report in flight)


def pct(values, p):
    """The p-th percentile (nearest rank: the ceil(p/100 * n)-th smallest) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, math.ceil(p / 100.0 * len(s)) - 1))
    return s[k]


def figures(values):
    if not values:
        return {"n": 0}
    return {"n": len(values), "median_s": round(statistics.median(values), 2),
            "p95_s": round(pct(values, 95), 2), "worst_s": round(max(values), 2)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name in ("--mode", "--events", "--scan", "--notify", "--a", "--b", "--json"):
        ap.add_argument(name)
    ap.add_argument("--watchdog-usec", type=int, required=True)
    ap.add_argument("--window", type=float, required=True)
    ap.add_argument("--minutes", type=float, default=0)
    a = ap.parse_args()
    ours = {"A": set(a.a.split()), "B": set(a.b.split())}

    faults, samples, stop, pid = [], [], None, None
    for line in open(a.events):
        f = line.split()
        if f and f[0] == "fault" and len(f) == 6:
            faults.append({"kind": f[1], "t0": float(f[2]), "t1": float(f[3]),
                           "rec": None if f[4] == "none" else float(f[4]), "config": f[5]})
        elif f and f[0] == "sample" and len(f) == 4:
            samples.append((float(f[1]), int(f[2]), int(f[3])))
        elif f and f[0] == "stop" and len(f) in (3, 4, 5):
            stop = (float(f[1]), int(f[2]), int(f[3]) if len(f) >= 4 else None, float(f[4]) if len(f) == 5 else None)
        elif f and f[0] == "process" and len(f) == 2:
            pid = int(f[1])

    times, datas = [], []
    for line in open(a.scan, errors="replace"):
        m = REPORT.match(line)
        if m:
            times.append(float(m.group(1)))
            datas.append(m.group(2))
    order = sorted(range(len(times)), key=times.__getitem__)
    times = [times[i] for i in order]
    datas = [datas[i] for i in order]

    def heard(t0, t1):
        """The data of every report in [t0, t1)."""
        return set(datas[bisect.bisect_left(times, t0):bisect.bisect_left(times, t1)])

    failed = []
    out = {"mode": a.mode, "faults": len(faults)}

    # faults and recoveries
    by_kind = {}
    for f in faults:
        by_kind.setdefault(f["kind"], []).append(f)
    rec_all = [f["rec"] - f["t1"] for f in faults if f["rec"] is not None]
    unrecovered = [f for f in faults if f["rec"] is None]
    out["recovery"] = figures(rec_all)
    out["unrecovered"] = len(unrecovered)
    out["kinds"] = {}
    print("soak %s: %d faults of %d kinds, %d not recovered" % (a.mode, len(faults), len(by_kind), len(unrecovered)))
    print("%-20s %5s %9s %9s %9s %6s" % ("fault", "n", "median_s", "p95_s", "worst_s", "unrec"))
    for kind in sorted(by_kind):
        fs = by_kind[kind]
        r = figures([f["rec"] - f["t1"] for f in fs if f["rec"] is not None])
        u = sum(1 for f in fs if f["rec"] is None)
        out["kinds"][kind] = dict(r, unrecovered=u)
        print("%-20s %5d %9s %9s %9s %6d" % (kind, len(fs), r.get("median_s", "-"), r.get("p95_s", "-"), r.get("worst_s", "-"), u))
    r = out["recovery"]
    print("%-20s %5d %9s %9s %9s %6d" % ("all", len(faults), r.get("median_s", "-"), r.get("p95_s", "-"), r.get("worst_s", "-"), len(unrecovered)))
    for f in unrecovered:
        failed.append("fault %s at %.3f (config %s) not recovered" % (f["kind"], f["t0"], f["config"]))

    # polls between faults, and stale identities (the other config's beacons after a recovery)
    polls = good = stale = 0
    stale_seen = set()
    for i, f in enumerate(faults):
        if f["rec"] is None:
            continue
        until = faults[i + 1]["t0"] if i + 1 < len(faults) else (stop[0] if stop else f["rec"])
        want, other = ours[f["config"]], ours["B" if f["config"] == "A" else "A"]
        t = f["rec"]
        while t + a.window <= until:
            polls += 1
            good += want <= heard(t, t + a.window)
            t += a.window
        lo, hi = bisect.bisect_left(times, f["rec"]), bisect.bisect_left(times, until)
        for d in datas[lo:hi]:
            if d in other:
                stale += 1
                stale_seen.add(d)
    out["polls"] = polls
    out["polls_every_beacon"] = round(good / polls, 4) if polls else None
    out["stale_reports"] = stale
    print("polls of %.0f s between a recovery and the next fault: %d, every beacon heard in %d (%s)" % (
        a.window, polls, good, "%.1f %%" % (100.0 * good / polls) if polls else "-"))
    print("stale identities heard after a recovery: %d reports%s" % (stale, (" (" + ", ".join(sorted(stale_seen)) + ")") if stale else ""))
    if stale:
        failed.append("%d reports of the other config's beacons after a recovery" % stale)

    # the watchdog
    beats = []
    for line in open(a.notify, errors="replace"):
        m = re.match(r"^t=([0-9.]+) (.*)$", line.rstrip("\n"))
        if m and "WATCHDOG=1" in m.group(2).split(" | "):
            beats.append(float(m.group(1)))
    if stop:
        beats = [b for b in beats if b <= stop[0]] + [stop[0]]
    gaps = [b - c for c, b in zip(beats, beats[1:])]
    gap = max(gaps) if gaps else None
    limit = a.watchdog_usec / 2e6
    out["watchdog_beats"] = len(beats) - (1 if stop else 0)
    out["watchdog_longest_gap_s"] = round(gap, 2) if gap is not None else None
    print("WATCHDOG=1: %d, longest gap %s s (half of WatchdogSec: %.1f s)" % (
        out["watchdog_beats"], "%.2f" % gap if gap is not None else "-", limit))
    if gap is None or gap >= limit:
        failed.append("longest watchdog gap %s s, not under %.1f s" % (gap, limit))

    # the process
    labels = ["start", "middle", "end"] if len(samples) >= 3 else ["start", "end"][:len(samples)]
    picked = [samples[0], samples[len(samples) // 2], samples[-1]] if len(samples) >= 3 else samples
    out["process"] = {lab: {"rss_kb": s[1], "fds": s[2]} for lab, s in zip(labels, picked)}
    print("resident set / descriptors: " + ", ".join("%s %d kB / %d" % (lab, s[1], s[2]) for lab, s in zip(labels, picked)))
    if a.minutes >= 20 and len(samples) >= 3 and picked[2][1] > picked[1][1] * 1.10:
        failed.append("resident set grew %d -> %d kB from the middle to the end (over 10 %%)" % (picked[1][1], picked[2][1]))

    # the stop
    if stop is None:
        failed.append("no stop recorded")
    else:
        since = stop[3] + GONE_GRACE_S if stop[3] is not None else stop[0] + STOP_GRACE_S
        after = [d for d in datas[bisect.bisect_left(times, since):] if d in ours["A"] | ours["B"]]
        out["exit"] = stop[1]
        out["ours_after_stop"] = len(after)
        if pid is not None and stop[2] is not None:
            out["pid"] = pid
            print("process: pid %d from the start to SIGTERM, found running after each of %d faults" % (pid, stop[2]))
        if stop[3] is not None:
            out["gone_s"] = round(stop[3] - stop[0], 3)
            print("SIGTERM: exit %d, gone %.2f s after the signal; reports of ours from %.2f s after its exit: %d"
                  % (stop[1], stop[3] - stop[0], GONE_GRACE_S, len(after)))
        else:
            print("SIGTERM: exit %d; reports of ours from %.0f s after the stop: %d" % (stop[1], STOP_GRACE_S, len(after)))
        if stop[1] != 0:
            failed.append("exit %d after SIGTERM" % stop[1])
        if after:
            failed.append("%d reports of ours after the stop" % len(after))

    out["failed"] = failed
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    for m in failed:
        print("FAILED: " + m)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
