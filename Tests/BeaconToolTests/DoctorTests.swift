// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Foundation
import Testing

/// `beacon-tx doctor` from a scripted machine: files, directories, `systemctl`, the uid, the
/// controllers (HCI probe) and the kernel (MGMT). Each finding's ok, warn and fail paths.
@Suite struct DoctorTests {
    typealias C = Controllers

    /// A scripted machine: `files` by path, `dirs` by path, `systemctl show` answer.
    static func machine(files: [String: String] = [:], dirs: [String: [String]] = [:], systemctl: String? = nil,
                        uid: UInt32 = 0, rfkill: [UInt16: RFKillBlock] = [:], kernelLog: String? = "") -> SystemProbe {
        var p = SystemProbe()
        p.readFile = { files[$0].map { Array($0.utf8) } }
        p.listDirectory = { dirs[$0] ?? [] }
        p.run = { argv in argv.first == "/usr/bin/systemctl" ? systemctl.map { (0, $0) } : nil }
        p.effectiveUID = { uid }
        p.rfkill = { rfkill[$0] }
        p.kernelLog = { kernelLog }
        return p
    }

    static let rootStatus = "Name:\tbeacon-tx\nUid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n"
    static let nobodyStatus = "Name:\tbeacon-tx\nUid:\t65534\t65534\t65534\t65534\nCapEff:\t0000000000000000\n"
    static let unit = "[Service]\nExecStart=/usr/bin/beacon-tx start --config /etc/beacon-tx/kiosk.json\nAmbientCapabilities=CAP_NET_RAW CAP_NET_ADMIN\n"

    /// hci0 up, extended (16 sets), powered, with the kernel's `instances`.
    static func host(extended: Bool = true, instances: [UInt8] = [], powered: Bool = true,
                     up: Bool = true) -> (FakeHost, ScriptedController, ScriptedKernel) {
        let fake = ScriptedController(up ? C.probe(hciVersion: extended ? 9 : 6, extended: extended) + (extended ? C.setLimits() : []) : [])
        let features: [UInt8] = [0x7F, 0x00, 0x00, 0x00, 31, 31, 5, UInt8(instances.count)] + instances
        let kernel = ScriptedKernel([
            Kernel.step(.readControllerInformation(index: 0), SingleInstanceOwnershipLiveTests.controllerInformation(current: powered ? 0x0201 : 0x0200)),
            Kernel.step(.readAdvertisingFeatures(index: 0), features),
        ])
        let h = FakeHost(devices: [C.device(0, up: up)], channels: [0: fake])
        h.control = kernel
        return (h, fake, kernel)
    }

    func finding(_ r: ToolRun, _ id: String) throws -> JSON {
        guard case let .array(items)? = try JSON.parse(r.out)["findings"] else { throw CLIError(.software, "no findings") }
        guard let f = items.first(where: { $0["id"] == .string(id) }) else { throw CLIError(.software, "no finding \(id)") }
        return f
    }

    @Test func aHealthyMachineIsAllOkAndExits0() throws {
        let (h, fake, kernel) = Self.host()
        let sys = Self.machine(files: ["/proc/self/status": Self.rootStatus, "/proc/1/comm": "init\n", "/lib/systemd/system/beacon-tx.service": Self.unit])
        let r = tool(["doctor"], host: h, system: sys)
        #expect(r.code == 0, "\(r.out)\(r.err)")
        #expect(fake.isFullyConsumed, "left: \(fake.remaining)")
        #expect(kernel.isFullyConsumed && kernel.mismatches.isEmpty, "\(kernel.remaining) \(kernel.mismatches)")
        #expect(!r.out.contains("WARN") && !r.out.contains("FAIL"), "\(r.out)")
        expectSnapshot(r.out, "doctor-healthy.txt")
        let j = tool(["doctor", "--json"], host: Self.host().0, system: sys)
        expectSnapshot(j.out, "doctor-healthy.json")
        #expect(try JSON.parse(j.out)["ok"] == .bool(true))
    }

    @Test func noBluetoothInTheKernelFails() throws {
        let r = tool(["doctor", "--json"], system: Self.machine(files: ["/proc/self/status": Self.rootStatus]))
        #expect(r.code == 1)
        let f = try finding(r, "kernel-bluetooth")
        #expect(f["verdict"] == .string("fail"))
        #expect(f["remedy"] == .string("load the module (modprobe bluetooth), or use a kernel built with CONFIG_BT"))
    }

    @Test func noControllerFailsTheAdapters() throws {
        let r = tool(["doctor", "--json"], host: FakeHost(devices: [], channels: [:]), system: Self.machine())
        #expect(r.code == 1)
        #expect(try finding(r, "adapters")["verdict"] == .string("fail"))
        #expect(try finding(r, "kernel-bluetooth")["verdict"] == .string("ok"))
    }

    @Test func aBlockedAdapterFailsWithTheRemedy() throws {
        let (h, _, _) = Self.host(powered: false, up: false)
        h.deviceList[0].rfkill = RFKillBlock(soft: true, hard: false)
        let r = tool(["doctor"], host: h, system: Self.machine(files: ["/proc/self/status": Self.rootStatus]))
        #expect(r.code == 1)
        expectSnapshot(r.out, "doctor-blocked.txt")
        let j = tool(["doctor", "--json"], host: { let (h2, _, _) = Self.host(up: false); h2.deviceList[0].rfkill = RFKillBlock(soft: false, hard: true); return h2 }(),
                     system: Self.machine())
        let f = try finding(j, "rfkill")
        #expect(f["verdict"] == .string("fail") && f["device"] == .string("hci0"))
        #expect(f["summary"] == .string("blocked by rfkill (hard): it cannot be brought up"))
        #expect(try finding(j, "power")["summary"] == .string("down: rfkill keeps it down"))
    }

    @Test func aDownAdapterWarnsAndSaysWhoPoweredItOff() throws {
        let (h, _, _) = Self.host(powered: false, up: false)
        let sys = Self.machine(files: ["/proc/self/status": Self.rootStatus, "/proc/321/comm": "bluetoothd\n", "/proc/7/comm": "sshd\n"],
                               dirs: ["/proc": ["1", "7", "321", "self", "sys"]])
        let r = tool(["doctor", "--json"], host: h, system: sys)
        #expect(r.code == 0, "a down adapter is a warning: start brings it up")
        let power = try finding(r, "power")
        #expect(power["verdict"] == .string("warn"))
        #expect(power["summary"]?.string?.contains("an administrator powered it off (bluetoothctl power off)") == true, "\(power)")
        #expect(power["detail"]?.string?.contains("MGMT Read Controller Information: current settings lack Powered") == true)
        #expect(try finding(r, "bluetoothd")["summary"]?.string?.hasPrefix("bluetoothd runs (pid 321)") == true)
        // Without bluetoothd nobody powered it: start does.
        let (h2, _, _) = Self.host(powered: false, up: false)
        let alone = tool(["doctor", "--json"], host: h2, system: Self.machine())
        #expect(try finding(alone, "power")["summary"]?.string?.hasPrefix("down (nobody powered it; no bluetoothd runs)") == true)
    }

    @Test func withoutPrivilegesDoctorSaysWhatItCouldNotSee() throws {
        let fake = ScriptedController([])
        let kernel = ScriptedKernel([
            .command(.readControllerInformation(index: 0), replies: [Kernel.ok(.readControllerInformation(index: 0), SingleInstanceOwnershipLiveTests.controllerInformation(current: 0x0201))]),
            .command(.readAdvertisingFeatures(index: 0), replies: [Kernel.fail(.readAdvertisingFeatures(index: 0), .permissionDenied)]),
        ])
        let h = FakeHost(devices: [C.device(0)], channels: [0: fake])
        h.openError = .permissionDenied(call: "bind", device: "hci0")
        h.control = kernel
        let r = tool(["doctor"], host: h, system: Self.machine(files: ["/proc/self/status": Self.nobodyStatus], uid: 65534, kernelLog: nil))
        #expect(r.code == 0, "nothing fails: \(r.out)")
        expectSnapshot(r.out, "doctor-nonroot.txt")
        #expect(r.out.contains("WARN  privileges"))
        #expect(r.out.contains("(MGMT needs CAP_NET_ADMIN for it)"))
        #expect(r.out.contains("reading them from the controller needs CAP_NET_RAW"))
        #expect(kernel.isFullyConsumed, "\(kernel.remaining)")
    }

    @Test func aKernelInstanceOnALegacyOnlyControllerAndWhatShareAutoDoes() throws {
        let (h, fake, _) = Self.host(extended: false, instances: [1])
        let sys = Self.machine(files: ["/proc/self/status": Self.rootStatus, "/proc/40/comm": "bluetoothd\n"], dirs: ["/proc": ["40"]])
        let r = tool(["doctor"], host: h, system: sys)
        #expect(r.code == 0, "\(r.out)")
        #expect(fake.isFullyConsumed, "\(fake.remaining)")
        expectSnapshot(r.out, "doctor-kernel-instance.txt")
        let j = tool(["doctor", "--json"], host: Self.host(extended: false, instances: [1]).0, system: sys)
        #expect(try finding(j, "kernel-instances")["verdict"] == .string("warn"))
        #expect(try finding(j, "share-auto")["summary"]?.string?.hasPrefix("--share auto would share") == true)
        // An extended controller with 16 sets: no sharing, the instances coexist.
        let e = tool(["doctor", "--json"], host: Self.host(extended: true, instances: [1]).0, system: sys)
        #expect(try finding(e, "kernel-instances")["verdict"] == .string("ok"))
        #expect(try finding(e, "share-auto")["summary"]?.string?.hasPrefix("--share auto would not share: extended advertising with several sets") == true)
    }

    @Test func anotherBeaconTxOwningTheDeviceIsNamedWithItsUnit() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let state = SessionState(device: "hci0", pid: 777, onAir: true, status: "advertising 1 beacon", family: .extended, sets: [1],
                                 beacons: [], since: 1_800_000_000)
        try FileIO.write(Array(state.json.pretty.utf8), to: dir + "/hci0.json", what: "state")
        var svc = service([:], stateDirectory: dir, alive: [777])
        svc.lockHolder = { _ in .process(777) }
        let sys = Self.machine(files: ["/proc/777/cgroup": "0::/system.slice/beacon-tx.service\n"])
        let r = tool(["doctor", "--json"], host: Self.host().0, service: svc, system: sys)
        let owner = try finding(r, "owner")
        #expect(owner["verdict"] == .string("warn"))
        #expect(owner["summary"] == .string("another beacon-tx owns hci0 (pid 777, beacon-tx.service): a second start on it exits 75"))
        #expect(owner["remedy"] == .string("systemctl stop beacon-tx.service"))
        #expect(try finding(r, "session")["verdict"] == .string("ok"))
        // Gone: a stale state file.
        var gone = service([:], stateDirectory: dir, alive: [])
        gone.lockHolder = { _ in .free }
        let stale = tool(["doctor", "--json"], host: Self.host().0, service: gone, system: sys)
        #expect(try finding(stale, "owner")["verdict"] == .string("ok"))
        #expect(try finding(stale, "session")["summary"]?.string?.hasPrefix("stale state: pid 777 is gone") == true)
        // The holder is the kernel's (F_GETLK), never taken: doctor claims nothing, and a socket
        // bound to the old abstract name (or one whose name ends in it) names no owner.
        var never = service([:], stateDirectory: dir, alive: [777])
        never.claimDevice = { _ in Issue.record("doctor took the lock"); return .claimed(nil) }
        never.lockHolder = { _ in .process(778) }
        let table = "Num       RefCount Protocol Flags    Type St Inode Path\n0000000000000000: 00000002 00000000 00000000 0002 01 15603 @x @beacon-tx/hci0\n"
        let seen = tool(["doctor", "--json"], host: Self.host().0, service: never,
                        system: Self.machine(files: ["/proc/net/unix": table, "/proc/778/cgroup": "0::/user.slice/session-3.scope\n"]))
        #expect(try finding(seen, "owner")["summary"] == .string("another beacon-tx owns hci0 (pid 778, session-3.scope): a second start on it exits 75"))
        #expect(try finding(seen, "owner")["remedy"] == .string("beacon-tx stop --device hci0"))
        never.lockHolder = { _ in .free }
        let free = tool(["doctor", "--json"], host: Self.host().0, service: never,
                        system: Self.machine(files: ["/proc/net/unix": table]))
        #expect(try finding(free, "owner")["verdict"] == .string("ok"))
    }

    @Test func aBrokenConfigFailsWithTheExactError() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/kiosk.json"
        try FileIO.write(Array(#"{"beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 70000, "minor": 1}]}"#.utf8), to: path, what: "config")
        let r = tool(["doctor", "--json", "--config", path], host: Self.host().0, system: Self.machine())
        #expect(r.code == 1)
        let f = try finding(r, "config")
        #expect(f["verdict"] == .string("fail"))
        let direct = tool(["start", "--config", path, "--dry-run"])
        // The same message start gives.
        #expect(direct.err.contains(f["summary"]?.string?.replacingOccurrences(of: "\(path) is not valid: ", with: "") ?? "-"), "\(direct.err) vs \(f)")
    }

    @Test func aValidConfigShowsThePlanAndItsWarnings() throws {
        let path = repoPath("Config/kiosk.json")
        let r = tool(["doctor", "--json", "--config", path], host: Self.host().0, system: Self.machine())
        let f = try finding(r, "config")
        #expect(f["verdict"] == .string("ok"), "\(f)")
        #expect(f["summary"]?.string?.contains("is valid: 1 beacon, extended commands, one set") == true, "\(f)")
        // Twelve rotated beacons of 100 ms: a 1.2 s cycle, over iOS's ranging period.
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let beacons = (1...12).map { #"{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": \#($0)}"# }.joined(separator: ", ")
        try FileIO.write(Array(#"{"controller": "legacy", "rotation": 100, "beacons": [\#(beacons)]}"#.utf8), to: dir + "/many.json", what: "config")
        let many = try finding(tool(["doctor", "--json", "--config", dir + "/many.json"], host: Self.host().0, system: Self.machine()), "config")
        #expect(many["verdict"] == .string("warn"), "\(many)")
        #expect(many["detail"]?.string?.contains("rotation cycle 1200 ms (12 beacons x 100 ms) is longer than iOS's 1 s ranging period") == true, "\(many)")
        // The 100 ms floor of a 4.x controller.
        try FileIO.write(Array(#"{"interval": 50, "beacons": [{"uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", "major": 1, "minor": 1}]}"#.utf8), to: dir + "/fast.json", what: "config")
        let fast = try finding(tool(["doctor", "--json", "--config", dir + "/fast.json"], host: Self.host(extended: false).0, system: Self.machine()), "config")
        #expect(fast["verdict"] == .string("warn"), "\(fast)")
        #expect(fast["detail"]?.string?.contains("100 ms") == true, "\(fast)")
    }

    @Test func theUnitsUnderSystemd() throws {
        let failed = "Id=beacon-tx.service\nLoadState=loaded\nUnitFileState=enabled\nActiveState=failed\nResult=exit-code\nExecMainStatus=65\n\n"
            + "Id=beacon-tx@*.service\nLoadState=not-found\nUnitFileState=\nActiveState=inactive\nResult=success\nExecMainStatus=0\n"
        let sys = Self.machine(files: ["/proc/1/comm": "systemd\n"], systemctl: failed)
        let r = tool(["doctor"], host: Self.host().0, system: sys)
        #expect(r.code == 1)
        expectSnapshot(r.out, "doctor-failed-unit.txt")
        let f = DoctorRules.units(pid1: "systemd", show: (0, failed))
        #expect(f.verdict == .fail && f.summary == "beacon-tx.service failed (result exit-code, last exit 65)")
        #expect(f.remedy.hasPrefix("journalctl -u beacon-tx.service"))
        let running = "Id=beacon-tx.service\nLoadState=loaded\nUnitFileState=enabled\nActiveState=active\nResult=success\nExecMainStatus=0\n"
        #expect(DoctorRules.units(pid1: "systemd", show: (0, running)) == DoctorFinding(id: "units", verdict: .ok, summary: "beacon-tx.service enabled, active"))
        #expect(DoctorRules.units(pid1: "init", show: nil).verdict == .ok)
        #expect(DoctorRules.units(pid1: "systemd", show: nil).verdict == .warn)
    }

    @Test func privilegesAndTheUnitsCapabilities() {
        #expect(DoctorRules.effectiveCapabilities(procStatus: Self.rootStatus) == 0x1ff_ffff_ffff)
        #expect(DoctorRules.effectiveCapabilities(procStatus: "CapEff:\tzz\n") == nil)
        #expect(DoctorRules.privileges(uid: 0, capEff: 0x1ff_ffff_ffff).verdict == .ok)
        // The service's grant: a dynamic user with just the two.
        #expect(DoctorRules.privileges(uid: 61234, capEff: 0x3000).verdict == .ok)
        let raw = DoctorRules.privileges(uid: 1000, capEff: 0x2000)
        #expect(raw.verdict == .warn && raw.summary.hasPrefix("uid 1000 lacks CAP_NET_ADMIN:"))
        #expect(DoctorRules.unitCapabilities(path: "/lib/systemd/system/beacon-tx.service", unit: Self.unit).verdict == .ok)
        let stripped = DoctorRules.unitCapabilities(path: "/etc/systemd/system/beacon-tx.service", unit: "AmbientCapabilities=CAP_NET_RAW\n")
        #expect(stripped.verdict == .warn && stripped.summary.hasSuffix("the service lacks CAP_NET_ADMIN"))
        #expect(DoctorRules.unitCapabilities(path: nil, unit: nil).verdict == .ok)
        #expect(DoctorRules.unitName(cgroup: "0::/system.slice/system-beacon\\x2dtx.slice/beacon-tx@hci1.service\n") == "beacon-tx@hci1.service")
        #expect(DoctorRules.unitName(cgroup: "0::/\n") == nil)
    }

    @Test func theJSONFollowsItsSchema() throws {
        let schema = try JSON.parse(String(decoding: try FileIO.read(repoPath("Docs/doctor.schema.json"), what: "schema"), as: UTF8.self))
        #expect(schema["$defs"]?["finding"]?["properties"]?["id"]?["enum"] == .array(DoctorReport.findingIDs.map(JSON.string)),
                "the schema lists every finding id")
        let (h, _, _) = Self.host(extended: false, instances: [1])
        let r = tool(["doctor", "--json"], host: h, system: Self.machine(files: ["/proc/1/comm": "systemd\n"], systemctl: "Id=beacon-tx.service\nLoadState=loaded\nActiveState=failed\nResult=exit-code\nExecMainStatus=69\n"))
        guard case let .array(items)? = try JSON.parse(r.out)["findings"] else { Issue.record("no findings"); return }
        let keys = ["id", "device", "verdict", "summary", "detail", "remedy"]
        for item in items {
            guard case let .object(pairs) = item else { Issue.record("not an object"); continue }
            #expect(pairs.map(\.0) == keys)
            #expect(DoctorReport.findingIDs.contains(item["id"]?.string ?? ""), "\(item)")
            #expect(["ok", "warn", "fail"].contains(item["verdict"]?.string ?? ""))
        }
        #expect(Set(items.compactMap { $0["id"]?.string }) == Set(DoctorReport.findingIDs), "one device: every finding once")
    }
}

extension JSON {
    var string: String? { if case let .string(s) = self { return s } else { return nil } }
}
