// SPDX-License-Identifier: Apache-2.0
/// `verify`, part 1: attribution. Pairs each HCI command on our controller with its answer and
/// notes who sent it (the MGMT command and program that made the kernel send it, or the raw sockets
/// open then), and turns Close/Delete Index records into changes.
extension CaptureVerifier {
    /// One HCI command on our controller with its answer.
    struct Command {
        var position: Int
        var time: Int64
        var command: HCICommand
        var status: Status?
        /// Who made the kernel send it, or which raw sockets were open (monitor captures only).
        var who: String?
        /// A raw socket of a program called beacon-tx was open (always true without a monitor).
        var beaconTxOpen = true
    }

    /// The program name the kernel reports for beacon-tx's raw sockets (the task's comm).
    public static let programName = "beacon-tx"

    /// What changed the controller's advertising state (a command, or the controller closing).
    struct Change {
        var time: Int64
        var command: Int?
        var text: String
        var who: String?
    }
}

extension CaptureVerifier.Run {
    /// Pairs commands with their Command Complete / Status and notes who sent them.
    mutating func collect() {
        var pending: [Opcode: [Int]] = [:]
        var sockets: [UInt32: (open: CaptureRecord.ControlOpen, index: UInt16?)] = [:]
        // The program is looked up when the MGMT command is sent: its socket may close before
        // the kernel's HCI commands follow (and cookies are reused).
        var lastMGMT: (time: Int64, program: String?, opcode: UInt16)?
        for (position, r) in capture.records.enumerated() {
            let t = time(r.unixMicroseconds)
            switch r.kind {
            case let .controlOpen(o):
                sockets[o.cookie] = (o, r.controllerIndex)
                continue
            case let .controlClose(cookie):
                sockets[cookie] = nil
                continue
            case let .controlCommand(cookie, opcode, _) where onIndex(r) && MGMTCommand.names[opcode] != nil:
                lastMGMT = (t, sockets[cookie]?.open.comm, opcode)
                continue
            default:
                break
            }
            guard onIndex(r) else { continue }
            func rawSockets() -> [String] {
                var raw: [String] = []
                for (_, s) in sockets.sorted(by: { $0.key < $1.key })
                where s.open.format == CaptureRecord.ControlOpen.formatRaw && (s.index == index || s.index == CaptureFile.noIndex) {
                    let name = s.open.comm ?? "unknown"
                    if !raw.contains(name) { raw.append(name) }
                }
                return raw
            }
            func who() -> String? {
                guard isMonitor else { return nil }
                if let m = lastMGMT, withinMGMTWindow(t, after: m.time) {
                    let program = m.program.map { " from \($0)" } ?? ""
                    return "sent by the kernel for MGMT \(MGMTCommand.text(m.opcode))\(program)"
                }
                let raw = rawSockets()
                return "sent on a raw HCI socket" + (raw.isEmpty ? "" : " (raw sockets open: \(raw.joined(separator: ", ")))")
            }
            /// A controller closed or removed: after an MGMT command (Set Powered), or with the
            /// raw sockets open then (HCIDEVDOWN is an ioctl on one; an unplug has none).
            func indexWho() -> String? {
                guard isMonitor else { return nil }
                if let text = lastMGMTText(lastMGMT, t) { return text }
                let raw = rawSockets()
                return raw.isEmpty ? nil : "raw sockets open then: \(raw.joined(separator: ", "))"
            }
            switch r.kind {
            case let .command(c):
                pending[c.opcode, default: []].append(commands.count)
                let ours = !isMonitor || sockets.values.contains {
                    $0.open.format == CaptureRecord.ControlOpen.formatRaw && $0.open.comm == CaptureVerifier.programName
                }
                commands.append(Command(position: position, time: t, command: c, status: nil, who: who(), beaconTxOpen: ours))
            case let .event(e):
                var answered: (Opcode, Status?)?
                if let cc = try? CommandComplete(e) { answered = (cc.opcode, cc.status) }
                if let cs = try? CommandStatus(e) { answered = (cs.opcode, cs.status) }
                if let (opcode, status) = answered, var queue = pending[opcode], !queue.isEmpty {
                    let i = queue.removeFirst()
                    pending[opcode] = queue
                    commands[i].status = status ?? .success
                }
            case .closeIndex:
                indexChanges.append((position, Change(time: t, command: nil, text: "Close Index (device down)", who: indexWho())))
            case .deleteIndex:
                indexChanges.append((position, Change(time: t, command: nil, text: "Delete Index (controller removed)", who: indexWho())))
            default:
                break
            }
        }
    }

    /// `t` is at most the MGMT window after `start`; timestamps come from a file, so no overflow.
    func withinMGMTWindow(_ t: Int64, after start: Int64) -> Bool {
        let (elapsed, overflow) = t.subtractingReportingOverflow(start)
        return t >= start && !overflow && elapsed <= CaptureVerifier.mgmtWindowMicroseconds
    }

    func lastMGMTText(_ m: (time: Int64, program: String?, opcode: UInt16)?, _ t: Int64) -> String? {
        guard let m, withinMGMTWindow(t, after: m.time) else { return nil }
        return "after MGMT \(MGMTCommand.text(m.opcode))" + (m.program.map { " from \($0)" } ?? "")
    }
}
