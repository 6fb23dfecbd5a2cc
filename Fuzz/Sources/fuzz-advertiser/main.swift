// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

/// A controller that answers from the fuzz input: each receive takes one chunk. 0: nothing
/// (timeout), 1: SIGTERM, 2/3: Command Complete/Status for the last command with the next bytes as
/// status/ncmd/return parameters, anything else: raw event bytes (any framing).
final class FuzzController: HCIChannel {
    func close() {}
    var input: ArraySlice<UInt8>
    var sent: [[UInt8]] = []
    init(_ input: [UInt8]) { self.input = input[...] }

    func take(_ n: Int) -> [UInt8] {
        let chunk = Array(input.prefix(n))
        input = input.dropFirst(chunk.count)
        return chunk
    }

    func send(_ packet: [UInt8]) throws(TransportError) {
        require(sent.count < 64, "more than 64 commands sent")
        sent.append(packet)
    }

    func receive(timeoutMilliseconds: Int) throws(TransportError) -> HCIReceive {
        guard let kind = take(1).first else { return .timedOut }
        let opcode = sent.last.map { Array($0[1...2]) } ?? [0, 0]
        switch kind % 8 {
        case 0: return .timedOut
        case 1: return .signal(15)
        case 2:
            let header = take(2)
            let rest = take(Int(header.last ?? 0) % 16)
            let status = header.first ?? 0
            return .event(HCIEvent(code: .commandComplete, parameters: [1] + opcode + [status] + rest).packet)
        case 3:
            let status = take(1).first ?? 0
            return .event(HCIEvent(code: .commandStatus, parameters: [status, 1] + opcode).packet)
        case 4:
            throw TransportError.deviceDown(call: "write", device: "hci0")
        default:
            let n = Int(take(1).first ?? 0)
            return .event(take(n))
        }
    }

    func setEventFilter(_ events: [EventCode]) throws(TransportError) {}
    func observeCommands(_ on: Bool) throws(TransportError) {}
}

// Probe, start (with the family fallback) and stop against a controller that answers anything:
// never a trap, only planned commands on the wire, and a successful start sent its plan exactly.
exit(fuzzMain { input in
    guard input.count >= 2 else { return }
    let controller = FuzzController(Array(input.dropFirst(2)))
    var clock: Int64 = 0
    let runner = HCICommandRunner(channel: controller, timeoutMilliseconds: 1000, now: { clock += 300; return clock })
    let beacon = IBeacon(uuid: ProximityUUID(bytes: Array(repeating: input[0], count: 16))!, major: 1, minor: UInt16(input[1]))
    let options = AdvertisingOptions(interval: .standard, connectable: input[0] & 1 != 0,
                                     txPower: input[0] & 2 != 0 ? -8 : nil, advertisingHandle: input[1] % 4)
    let plans = [AdvertisingFamily.legacy, .extended].map { AdvertisingPlan(frame: .iBeacon(beacon), options: options, family: $0) }
    let probeOpcodes: Set<UInt16> = [0x1001, 0x1002, 0x2003]
    let planned = Set(plans.flatMap { ($0.start + $0.stop).map(\.command.opcode.rawValue) })
    func checkWire() {
        for packet in controller.sent {
            let command = try? HCICommand(packet: packet)
            require(command != nil, "an unparseable command was sent: \(Hex.encode(packet))")
            if let op = command?.opcode.rawValue {
                require(probeOpcodes.contains(op) || planned.contains(op), "unplanned command \(Hex.encode(packet))")
            }
        }
    }
    defer { checkWire() }
    guard let caps = try? Advertiser.probe(runner) else { return }
    let requested: AdvertisingFamily? = [nil, .legacy, .extended][Int(input[0] >> 2) % 3]
    guard let family = try? Advertiser.chooseFamily(requested, caps, device: "hci0") else { return }
    let before = controller.sent.count
    // As the session starts: the other family as the fallback only for `auto` on a controller that has it.
    let fallback = requested == nil && caps.supports(family.other) ? AdvertisingPlan(frame: .iBeacon(beacon), options: options, family: family.other) : nil
    guard let plan = try? Advertiser.startSwitchingOnce(runner, AdvertisingPlan(frame: .iBeacon(beacon), options: options, family: family),
                                                        fallback: fallback, switching: { _ in }) else { return }
    let startPackets = plan.start.map(\.command.packet)
    require(controller.sent.count - before >= startPackets.count, "start sent fewer commands than its plan")
    require(Array(controller.sent.suffix(startPackets.count)) == startPackets, "a successful start did not end with its exact plan")
    let beforeStop = controller.sent.count
    do {
        for step in plan.stop { try runner.run(step) }
        require(Array(controller.sent[beforeStop...]) == plan.stop.map(\.command.packet), "stop sent something else than its plan")
    } catch {}
})
