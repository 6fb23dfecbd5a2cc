// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif

// HCI packets as they come from a controller, a capture file or the command line: decoding never
// traps, and whatever decodes encodes back to the same bytes.
exit(fuzzMain { input in
    if let command = try? HCICommand(packet: input) {
        require(command.packet == input, "command round trip: \(Hex.encode(input))")
        require(input.count == 4 + command.parameters.count, "command length")
        for line in CommandText.describe(command) { require(line.unicodeScalars.allSatisfy(isPrintable), "command text \(line.debugDescription)") }
    }
    if let event = try? HCIEvent(packet: input) {
        require(event.packet == input, "event round trip: \(Hex.encode(input))")
        for line in CommandText.describe(event) { require(line.unicodeScalars.allSatisfy(isPrintable), "event text \(line.debugDescription)") }
        if let cc = try? CommandComplete(event) {
            require(cc.returnParameters.count + 3 == event.parameters.count, "Command Complete return parameters")
            _ = try? cc.validated()
            _ = try? LocalVersionInformation(returnParameters: cc.returnParameters)
        }
        if let cs = try? CommandStatus(event) { require(event.parameters.count == 4, "Command Status is 4 bytes, got \(cs)") }
        _ = StackInternalDeviceEvent(event)
    }
    // The rest of the bytes as the parameters of one of the event codes the tool decodes.
    if let first = input.first, input.count <= 256 {
        let code = [EventCode.commandComplete, .commandStatus, .leMeta, .hardwareError, .stackInternal][Int(first) % 5]
        let e = HCIEvent(code: code, parameters: Array(input.dropFirst()))
        require((try? HCIEvent(packet: e.packet)) == e, "event from parameters round trip")
        _ = CommandText.describe(e)
    }
    // A btsnoop capture: decoding never traps; what decodes re-encodes and decodes the same.
    if input.starts(with: Array("btsnoop".utf8)), let file = try? BTSnoop.read(input, .fail) {
        let again = try? BTSnoop.read(BTSnoop.write(datalink: file.datalink, file.frames), .fail)
        require(again?.datalink == file.datalink && again?.frames == file.frames, "btsnoop round trip")
    }
})
