#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The beacontools side of the scan-decode benchmark (see RESULTS.md).

Reads the payload file written by gen_payloads.py and times, over RUNS runs:
  parse_packet   beacontools.parse_packet(advertising data) for every payload: the AD-structure
                 parser, the same bytes IBeacon(advertisingData:) gets on the Swift side.
  process_packet (with --events) beacontools' own event path, Monitor.process_packet(H4 event),
                 reached without a Bluetooth socket. It is not a report decoder: it slices one
                 report at fixed offsets chosen by the controller's HCI version (< 5.0 legacy
                 layout, >= 5.0 extended layout), and an Aho-Corasick prefilter drops reports
                 that hold no known beacon signature before anything is parsed.
Prints one line per implementation:
  ROW <name> <payloads> <median s> <min s> <max s> <ibeacons>
Usage: bench_beacontools.py PAYLOAD_FILE [RUNS] [--events]
"""
import statistics
import sys
import time
import types

from beacontools import IBeaconAdvertisement, parse_packet


def load(path):
    events, datas = [], []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            _, event_hex, data_hex = line.split()
            events.append(bytes.fromhex(event_hex))
            datas.append(bytes.fromhex(data_hex))
    return events, datas


def time_runs(runs, once):
    """Calls once() runs times; returns (seconds of each run, the count the last run returned)."""
    seconds, found = [], None
    for _ in range(runs):
        start = time.perf_counter()  # CLOCK_MONOTONIC on Linux
        count = once()
        seconds.append(time.perf_counter() - start)
        if found is not None and count != found:
            raise SystemExit("beacontools: runs disagree (%d vs %d iBeacons)" % (found, count))
        found = count
    return seconds, found


def parse_packet_once(datas):
    def once():
        found = 0
        for data in datas:
            if type(parse_packet(data)) is IBeaconAdvertisement:
                found += 1
        return found
    return once


def monitors():
    """Two beacontools Monitors without a socket: one as on a pre-5.0 controller (legacy reports),
    one as on a 5.0 controller (extended reports). Monitor.__init__ imports the Linux backend, which
    needs PyBluez; a stand-in module is enough because run() (the socket loop) is never called."""
    sys.modules.setdefault("beacontools.backend", types.ModuleType("beacontools.backend"))
    from beacontools.scanner import HCIVersion, Monitor

    hits = [0]

    def callback(bt_addr, rssi, packet, properties):
        if type(packet) is IBeaconAdvertisement:
            hits[0] += 1

    legacy = Monitor(callback, 0, None, None, {})
    legacy.hci_version = HCIVersion.BT_CORE_SPEC_4_2
    extended = Monitor(callback, 0, None, None, {})
    extended.hci_version = HCIVersion.BT_CORE_SPEC_5_0
    return legacy, extended, hits


def process_packet_once(events):
    legacy, extended, hits = monitors()
    # What Monitor.run() does per received packet: LE Meta (0x3e) with subevent 0x02 or 0x0d.
    by_subevent = {0x02: legacy.process_packet, 0x0D: extended.process_packet}

    def once():
        hits[0] = 0
        for event in events:
            if event[1] == 0x3E:
                process = by_subevent.get(event[3])
                if process is not None:
                    process(event)
        return hits[0]
    return once


def row(name, payloads, seconds, found):
    print("ROW %s %d %.6f %.6f %.6f %d" % (name, payloads, statistics.median(seconds), min(seconds), max(seconds), found))
    sys.stdout.flush()


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    runs = int(args[1]) if len(args) > 1 else 5
    events, datas = load(args[0])
    seconds, found = time_runs(runs, parse_packet_once(datas))
    row("beacontools.parse_packet(ad)", len(datas), seconds, found)
    if "--events" in argv:
        seconds, found = time_runs(runs, process_packet_once(events))
        row("beacontools.Monitor.process_packet(event)", len(events), seconds, found)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
