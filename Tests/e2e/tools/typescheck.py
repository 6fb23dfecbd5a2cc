#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""typescheck: what a receiver heard of the beacon types, checked against the dry run's plan.

    typescheck.py scan PLAN.json SCAN.log      beacon-tx scan --json's lines (with its stderr)
    typescheck.py frames PLAN.json SCAN.txt    rawscan's report lines, parsed by beacontools

`scan`: every identifying beacon of the plan (iBeacon, AltBeacon, Eddystone-UID, Eddystone-URL)
was ranged with its identifiers, and an Eddystone beacon from the TLM's address carried the TLM's
values, its PDU count and time since start rising between its first and last report.

`frames` (run with the Python of the venv that holds beacontools, scripts/check-frames'):
every Eddystone frame heard parses in beacontools to the configured values (UID: namespace,
instance, ranging data; URL: URL, ranging data; TLM: version 0, battery 0, temperature 0x8000,
which beacontools reads unsigned as 128.0), and the TLM's counts rise.
Exit 1 names the first difference.
"""
import json
import sys


def fail(msg):
    print(f"typescheck: FAIL: {msg}")
    sys.exit(1)


def plan_beacons(path):
    return json.load(open(path))["beacons"]


def scan(plan_path, log_path):
    lines = [json.loads(l) for l in open(log_path) if l.startswith("{")]
    ranged = [l for l in lines if l.get("event") == "range"]
    keys = {"ibeacon": ("uuid", "major", "minor"), "altbeacon": ("id1", "id2", "id3"),
            "eddystone-uid": ("namespace", "instance"), "eddystone-url": ("url",)}
    telemetry = []
    for b in plan_beacons(plan_path):
        kind = b.get("type", "ibeacon")
        if kind not in keys:
            continue
        want = tuple(b[k] for k in keys[kind])
        mine = [r for r in ranged if r.get("type") == kind and tuple(r.get(k) for k in keys[kind]) == want]
        if not mine:
            fail(f"scan never ranged the {kind} {want}; ranged: {sorted({r.get('type') for r in ranged})}")
        if kind == "altbeacon" and mine[-1].get("measuredPower") != b["referenceRSSI"]:
            fail(f"altbeacon ranged with power {mine[-1].get('measuredPower')}, not its reference RSSI {b['referenceRSSI']}")
        if kind.startswith("eddystone-") and mine[-1].get("rangingData") != b["rangingData"]:
            fail(f"{kind} ranged with ranging data {mine[-1].get('rangingData')}, not {b['rangingData']}")
        print(f"typescheck: scan ranged {kind} {want}: {len(mine)} update(s)")
        if kind == "eddystone-uid":
            telemetry = [r["telemetry"] for r in mine if "telemetry" in r]
    if any(b.get("type") == "eddystone-tlm" for b in plan_beacons(plan_path)):
        if len(telemetry) < 2:
            fail(f"the Eddystone-UID carried its TLM in {len(telemetry)} report(s), not 2 or more")
        first, last = telemetry[0], telemetry[-1]
        print(f"typescheck: TLM with the UID: PDUs {first['advertisingPDUCount']} -> {last['advertisingPDUCount']},"
              f" up {first['uptimeSeconds']} -> {last['uptimeSeconds']} s")
        if not (last["advertisingPDUCount"] > first["advertisingPDUCount"] and last["uptimeSeconds"] > first["uptimeSeconds"]):
            fail("the TLM's PDU count and time since start did not rise between two reports")
        if (last["batteryMillivolts"], last["temperature"]) != (0, None):
            fail(f"TLM battery/temperature {last['batteryMillivolts']}/{last['temperature']}, not 0 / not measured")


def frames(plan_path, reports_path):
    from beacontools import parse_packet
    from beacontools.packet_types.eddystone import EddystoneTLMFrame, EddystoneUIDFrame, EddystoneURLFrame
    beacons = plan_beacons(plan_path)
    uid = next((b for b in beacons if b.get("type") == "eddystone-uid"), None)
    url = next((b for b in beacons if b.get("type") == "eddystone-url"), None)
    seen = {"uid": 0, "url": 0, "tlm": 0}
    counts = []
    for line in open(reports_path):
        if not line.startswith("report ") or " data=" not in line:
            continue
        data = bytes.fromhex(line.rsplit(" data=", 1)[1].strip())
        if b"\xaa\xfe" not in data:
            continue
        frame = parse_packet(data)
        if isinstance(frame, EddystoneUIDFrame):
            got = (frame.namespace, frame.instance, frame.tx_power)
            if not uid or got != (uid["namespace"], uid["instance"], uid["rangingData"]):
                fail(f"beacontools read an Eddystone-UID {got}, configured {uid and (uid['namespace'], uid['instance'], uid['rangingData'])}")
            seen["uid"] += 1
        elif isinstance(frame, EddystoneURLFrame):
            got = (frame.url, frame.tx_power)
            if not url or got != (url["url"], url["rangingData"]):
                fail(f"beacontools read an Eddystone-URL {got}, configured {url and (url['url'], url['rangingData'])}")
            seen["url"] += 1
        elif isinstance(frame, EddystoneTLMFrame):
            if (frame.voltage, frame.temperature) != (0, 128.0):
                fail(f"beacontools read a TLM with battery {frame.voltage} mV, temperature {frame.temperature}")
            counts.append((frame.advertising_count, frame.seconds_since_boot))
            seen["tlm"] += 1
        else:
            fail(f"beacontools read no Eddystone frame in {data.hex()}: {frame!r}")
    for kind, b in (("uid", uid), ("url", url), ("tlm", any(x.get("type") == "eddystone-tlm" for x in beacons))):
        if b and not seen[kind]:
            fail(f"no Eddystone-{kind.upper()} frame heard")
    if counts and not (max(counts)[0] > min(counts)[0]):
        fail(f"the TLM's PDU count did not rise over {len(counts)} frames: {min(counts)} .. {max(counts)}")
    print(f"typescheck: beacontools parsed {seen['uid']} UID, {seen['url']} URL, {seen['tlm']} TLM frame(s) exactly"
          + (f"; TLM PDUs {min(counts)[0]} -> {max(counts)[0]}" if counts else ""))


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("scan", "frames"):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    (scan if sys.argv[1] == "scan" else frames)(sys.argv[2], sys.argv[3])
