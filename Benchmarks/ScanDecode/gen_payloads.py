#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the payload set that both sides of the scan-decode benchmark read.

One line per advertisement:  KIND EVENT_HEX AD_HEX
  KIND      legacy-ibeacon | legacy-other | ext-ibeacon | ext-other
  EVENT_HEX the whole H4 LE Meta event (04 3e plen subevent num_reports ...) carrying one report
  AD_HEX    that report's advertising data (AD structures), the bytes beacontools' parse_packet takes
A header line '# payloads=N ibeacons=M seed=S' states what a correct decoder must find.

Deterministic for a given seed and count. Standard library only.
Usage: gen_payloads.py OUT_FILE [COUNT] [SEED]
"""
import random
import sys

# A handful of proximity UUIDs, as a site with a few beacon fleets would see.
UUIDS = [
    bytes.fromhex("e2c56db5dffb48d2b060d0f5a71096e0"),
    bytes.fromhex("f7826da64fa24e988024bc5b71e0893e"),
    bytes.fromhex("b9407f30f5f8466eaff925556b57fe6d"),
    bytes.fromhex("fda50693a4e24fb1afcfc6eb07647825"),
    bytes.fromhex("74278bdab64445208f0c720eaf059935"),
]


def ad(ad_type, data):
    """One AD structure: length (type + data), type, data."""
    return bytes([len(data) + 1, ad_type]) + data


def ibeacon_msd(rng):
    """Manufacturer Specific Data (0xFF): Apple 4c 00, type 02, length 15, UUID, major/minor (BE), power."""
    uuid = rng.choice(UUIDS)
    major = rng.randrange(0, 0x10000)
    minor = rng.randrange(0, 0x10000)
    power = rng.randrange(-75, -50) & 0xFF
    body = b"\x4c\x00\x02\x15" + uuid + major.to_bytes(2, "big") + minor.to_bytes(2, "big") + bytes([power])
    return ad(0xFF, body)


def ibeacon_data(rng):
    """The 30 bytes an iBeacon advertises: Flags 06, then the manufacturer data."""
    return ad(0x01, b"\x06") + ibeacon_msd(rng)


def other_data(rng):
    """Advertising data of a non-beacon device; none of these is an iBeacon for either decoder."""
    choice = rng.randrange(4)
    if choice == 0:
        # A sensor: flags, 16-bit service UUIDs (0x180f battery, 0x181a environmental), a name.
        return ad(0x01, b"\x06") + ad(0x03, b"\x0f\x18\x1a\x18") + ad(0x09, b"Thermo-%02d" % rng.randrange(100))
    if choice == 1:
        # Apple "Nearby" manufacturer data (type 0x10, not an iBeacon).
        return ad(0x01, b"\x1a") + ad(0xFF, b"\x4c\x00\x10\x05" + bytes(rng.randrange(256) for _ in range(5)))
    if choice == 2:
        # Microsoft manufacturer data (company 0x0006) and a TX power level.
        return ad(0x0A, b"\x08") + ad(0xFF, b"\x06\x00\x01\x09\x20\x02" + bytes(rng.randrange(256) for _ in range(12)))
    # A scan response style payload: just a complete local name.
    return ad(0x09, b"beacon-tx-neighbour")


def address(rng):
    return bytes(rng.randrange(256) for _ in range(6))


def rssi(rng):
    return rng.randrange(-100, -30) & 0xFF


def legacy_event(event_type, data, rng):
    """LE Advertising Report (subevent 02), one report: type, address type, address, length, data, RSSI."""
    params = bytes([0x02, 0x01, event_type, rng.randrange(2)]) + address(rng) + bytes([len(data)]) + data + bytes([rssi(rng)])
    return bytes([0x04, 0x3E, len(params)]) + params


def extended_event(event_type, data, rng, legacy_pdu):
    """LE Extended Advertising Report (subevent 0d), one report."""
    if legacy_pdu:
        phys, sid, tx_power = b"\x01\x00", 0xFF, 0x7F
    else:
        phys, sid, tx_power = bytes([0x01, rng.choice([0x01, 0x02])]), rng.randrange(16), rng.randrange(-20, 10) & 0xFF
    params = (bytes([0x0D, 0x01]) + event_type.to_bytes(2, "little") + bytes([rng.randrange(2)]) + address(rng)
              + phys + bytes([sid, tx_power, rssi(rng)]) + b"\x00\x00" + b"\x00" + bytes(6)
              + bytes([len(data)]) + data)
    if len(params) > 255:
        raise ValueError("event too long")
    return bytes([0x04, 0x3E, len(params)]) + params


def payload(rng):
    """(kind, event, advertising data) with a mix like a busy office: mostly beacons, some others."""
    roll = rng.random()
    if roll < 0.70:
        data = ibeacon_data(rng)
        return "legacy-ibeacon", legacy_event(0x03, data, rng), data  # ADV_NONCONN_IND
    if roll < 0.80:
        data = other_data(rng)
        return "legacy-other", legacy_event(rng.choice([0x00, 0x02, 0x04]), data, rng), data
    if roll < 0.90:
        data = ibeacon_data(rng)
        return "ext-ibeacon", extended_event(0x0010, data, rng, legacy_pdu=True), data  # legacy ADV_NONCONN_IND
    if roll < 0.95:
        # Extended (non-legacy) advertising: a name first, the iBeacon structure after it.
        data = ad(0x09, b"ext-beacon-%04d" % rng.randrange(10000)) + ibeacon_msd(rng)
        return "ext-ibeacon", extended_event(0x0000, data, rng, legacy_pdu=False), data
    data = other_data(rng) + ad(0xFF, b"\x59\x00" + bytes(rng.randrange(256) for _ in range(40)))
    return "ext-other", extended_event(0x0001, data, rng, legacy_pdu=False), data


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 64
    out = argv[1]
    count = int(argv[2]) if len(argv) > 2 else 20000
    seed = int(argv[3]) if len(argv) > 3 else 5
    rng = random.Random(seed)
    lines = []
    beacons = 0
    for _ in range(count):
        kind, event, data = payload(rng)
        beacons += kind.endswith("-ibeacon")
        lines.append("%s %s %s\n" % (kind, event.hex(), data.hex()))
    with open(out, "w") as f:
        f.write("# payloads=%d ibeacons=%d seed=%d\n" % (count, beacons, seed))
        f.writelines(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
