// SPDX-License-Identifier: Apache-2.0
import BeaconKit

/// Builds btsnoop files in BlueZ's monitor format (datalink 2001), as `btmon -w` writes them, from
/// real command and event bytes: for the capture reader and `verify` tests and their fixtures.
public struct MonitorCapture {
    public struct Record {
        public var index: UInt16
        public var opcode: UInt16
        public var payload: [UInt8]
        public var unixMicroseconds: UInt64
    }

    public var records: [Record] = []
    /// The time of the next record (each record moves it 1 ms unless `at` sets it).
    public var now: UInt64 = BTSnoop.year2000UnixMicroseconds

    public init() {}

    /// The next records start `seconds` after the first record of the capture.
    public mutating func at(_ seconds: Double) {
        now = UInt64(Int64(BTSnoop.year2000UnixMicroseconds) + Int64(seconds * 1_000_000))
    }

    public mutating func add(_ index: UInt16, _ opcode: UInt16, _ payload: [UInt8]) {
        records.append(Record(index: index, opcode: opcode, payload: payload, unixMicroseconds: now))
        now += 1000
    }

    public mutating func newIndex(_ index: UInt16, name: String, address: [UInt8] = [0, 0, 0, 0xaa, 0, 0]) {
        add(index, 0, [0x00, 0x00] + address + Array(name.utf8.prefix(8)) + Array(repeating: 0, count: 8 - min(8, name.utf8.count)))
    }

    public mutating func openIndex(_ index: UInt16) { add(index, 8, []) }
    public mutating func closeIndex(_ index: UInt16) { add(index, 9, []) }
    public mutating func deleteIndex(_ index: UInt16) { add(index, 1, []) }
    public mutating func note(_ text: String) { add(CaptureFile.noIndex, 12, Array(text.utf8) + [0]) }

    /// A socket opened by `comm` (format 0 raw, 2 MGMT), as the kernel reports it.
    public mutating func controlOpen(cookie: UInt32, format: UInt16, comm: String, index: UInt16 = CaptureFile.noIndex) {
        var w = ByteWriter()
        w.writeUInt32LE(cookie)
        w.writeUInt16LE(format)
        w.writeUInt8(1)                 // version
        w.writeUInt16LE(22)             // revision
        w.writeUInt32LE(1)              // trusted
        w.writeUInt8(16)
        w.writeBytes(Array(comm.utf8.prefix(15)) + Array(repeating: 0, count: 16 - min(15, comm.utf8.count)))
        add(index, 14, w.bytes)
    }

    public mutating func controlClose(cookie: UInt32, index: UInt16 = CaptureFile.noIndex) {
        var w = ByteWriter()
        w.writeUInt32LE(cookie)
        add(index, 15, w.bytes)
    }

    /// An MGMT command on socket `cookie` for controller `index`.
    public mutating func mgmt(_ index: UInt16, cookie: UInt32, opcode: UInt16, _ parameters: [UInt8] = []) {
        var w = ByteWriter()
        w.writeUInt32LE(cookie)
        w.writeUInt16LE(opcode)
        w.writeBytes(parameters)
        add(index, 16, w.bytes)
    }

    /// An MGMT event for socket `cookie` (Command Complete and Status go to the sender's socket only).
    public mutating func mgmtEvent(cookie: UInt32, _ e: MGMTEvent) {
        var w = ByteWriter()
        w.writeUInt32LE(cookie)
        w.writeUInt16LE(e.code.rawValue)
        w.writeBytes(e.parameters)
        add(e.index, 17, w.bytes)
    }

    /// The MGMT command on socket `cookie` and its answer: Command Complete (the instance as the
    /// return parameter) on Success, Command Status otherwise.
    public mutating func mgmtRun(cookie: UInt32, _ c: MGMTCommand, status: MGMTStatus = .success) {
        mgmt(c.index, cookie: cookie, opcode: c.opcode.rawValue, c.parameters)
        mgmtEvent(cookie: cookie, status == .success ? .complete(c, status, c.instance.map { [$0] } ?? []) : .status(c, status))
    }

    public mutating func command(_ index: UInt16, _ c: HCICommand) { add(index, 2, Array(c.packet.dropFirst())) }
    public mutating func event(_ index: UInt16, _ e: HCIEvent) { add(index, 3, Array(e.packet.dropFirst())) }

    /// The command and its Command Complete (Success with the table's return size, or `status` alone).
    public mutating func run(_ index: UInt16, _ c: HCICommand, status: Status = .success) {
        command(index, c)
        let cc = status == .success ? CommandComplete.success(for: c)
                                    : CommandComplete(numHCICommandPackets: 1, opcode: c.opcode, returnParameters: [status.rawValue])
        event(index, cc.event)
    }

    public mutating func run(_ index: UInt16, _ steps: [PlannedCommand], status: (HCICommand) -> Status = { _ in .success }) {
        for s in steps { run(index, s.command, status: status(s.command)) }
    }

    /// hci0 and hci1 as btmon sees them, bluetoothd's MGMT socket and the kernel's own set 0 with
    /// plain flags data on hci0, another program's iBeacon and a refused command on hci1, scan reports.
    public mutating func otherPrograms(uuid: ProximityUUID) {
        newIndex(0, name: "hci0")
        newIndex(1, name: "hci1", address: [0, 0, 0, 0xaa, 0, 1])
        openIndex(0)
        openIndex(1)
        controlOpen(cookie: 1, format: 2, comm: "bluetoothd")
        mgmt(0, cookie: 1, opcode: 0x0005, [1])          // Set Powered
        run(0, .reset)
        run(0, .leSetExtendedAdvertisingParameters(handle: 0, properties: .legacyConnectable, intervalMin: 0x800, intervalMax: 0x800))
        run(0, .leSetExtendedAdvertisingData(handle: 0, data: [0x02, 0x01, 0x06]))
        run(0, .leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 0)]))
        // another program's iBeacon (minor 9) on hci1, on the same handle beacon-tx uses on hci0
        let other = IBeacon(uuid: uuid, major: 1, minor: 9)
        run(1, .leSetExtendedAdvertisingParameters(handle: 239, properties: .legacyNonconnectable, intervalMin: 0x20, intervalMax: 0x20),
              status: Status(rawValue: 0x07))
        run(1, .leSetExtendedAdvertisingData(handle: 239, data: other.advertisingData))
        run(1, .leSetExtendedAdvertisingEnable(true, sets: [AdvertisingSetEnable(handle: 239)]))
        event(1, HCIEvent(code: .leMeta, parameters: [0x0d, 0x01, 0x13, 0x00, 0x00, 0x00, 0x00, 0x00, 0xaa, 0x00, 0x00]))
    }

    /// The whole file, written by the one btsnoop writer (flags = index << 16 | opcode).
    public var bytes: [UInt8] {
        BTSnoop.write(datalink: CaptureFile.datalinkMonitor, records.map {
            BTSnoop.Frame(flags: UInt32($0.index) << 16 | UInt32($0.opcode), unixMicroseconds: $0.unixMicroseconds, payload: $0.payload)
        })
    }
}
