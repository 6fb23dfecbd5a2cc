#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""gaps: the time between consecutive reports of one advertisement at the receiver (rawscan.py --clock).

    gaps.py SCANLOG DATA_HEX --since T --until T [--interval MS] [--json]

With a fixed advertising interval I, the advertiser's events are I + advDelay apart, advDelay a fresh
random 0-10 ms each event (Core spec Vol 6, Part B, 4.4.2.2.1). A scanner that hears every event sees
gaps of I..I+10 ms; a missed event makes a gap of about 2 I, and a scanner that hears the same event
on two channels (it changed channel during the event) a gap of a few ms. Prints

    reports=95 per_s=9.50 gaps=94 single=90 double=3 same_event=1 other=0
    single_ms min=100.4 p10=101.2 median=105.3 p90=109.6 max=112.0 mean=105.2 spread_p10_p90=8.4
    histogram_ms 100:9 101:10 ... (single gaps, 1 ms bins)

single: gaps within I-5 .. I+15 ms (one event to the next), double: 2I-5 .. 2I+15, same_event: < 5 ms.
"""
import argparse
import json
import re
import statistics
import sys

LINE = re.compile(r"^report \S+ \S+ type=\S+ addr=\S+ .*?t=([0-9.]+) data=([0-9a-f]*)$")


def pct(xs, p):
    return xs[min(len(xs) - 1, int(p * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("data")
    ap.add_argument("--since", type=float, required=True)
    ap.add_argument("--until", type=float, required=True)
    ap.add_argument("--interval", type=float, default=100.0)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    ts = []
    with open(a.log, errors="replace") as f:
        for line in f:
            m = LINE.match(line.strip())
            if m and m.group(2) == a.data.lower() and a.since <= float(m.group(1)) <= a.until:
                ts.append(float(m.group(1)))
    ts.sort()
    gaps = [(y - x) * 1000 for x, y in zip(ts, ts[1:])]
    i = a.interval
    single = sorted(g for g in gaps if i - 5 <= g < i + 15)
    out = {"reports": len(ts), "per_s": round(len(ts) / max(a.until - a.since, 1e-9), 2), "gaps": len(gaps),
           "single": len(single), "double": sum(1 for g in gaps if 2 * i - 5 <= g < 2 * i + 15),
           "same_event": sum(1 for g in gaps if g < 5)}
    out["other"] = out["gaps"] - out["single"] - out["double"] - out["same_event"]
    if single:
        out["single_ms"] = {"min": round(single[0], 1), "p10": round(pct(single, 0.1), 1),
                            "median": round(statistics.median(single), 1), "p90": round(pct(single, 0.9), 1),
                            "max": round(single[-1], 1), "mean": round(statistics.mean(single), 1),
                            "spread_p10_p90": round(pct(single, 0.9) - pct(single, 0.1), 1)}
        hist = {}
        for g in single:
            hist[int(g)] = hist.get(int(g), 0) + 1
        out["histogram_ms"] = dict(sorted(hist.items()))
    if a.json:
        print(json.dumps(out))
        return 0
    print("reports=%(reports)d per_s=%(per_s).2f gaps=%(gaps)d single=%(single)d double=%(double)d "
          "same_event=%(same_event)d other=%(other)d" % out)
    if single:
        print("single_ms " + " ".join("%s=%s" % kv for kv in out["single_ms"].items()))
        print("histogram_ms " + " ".join("%d:%d" % kv for kv in out["histogram_ms"].items()))
    return 0 if ts else 1


if __name__ == "__main__":
    sys.exit(main())
