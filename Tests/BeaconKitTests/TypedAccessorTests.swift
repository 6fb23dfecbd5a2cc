// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import Testing

/// The codecs' typed accessors that replaced byte-offset reads in the probe, the scan session, the
/// MGMT channel and `verify` of the sharing mode: literal packets from the spec's layouts.
@Suite struct TypedAccessorTests {
    @Test func probeReadsAfterStatus() {
        let commands = CommandComplete(numHCICommandPackets: 1, opcode: .readLocalSupportedCommands, returnParameters: [0x00, 0xAA, 0xBB])
        #expect(commands.supportedCommands == [0xAA, 0xBB])
        #expect(commands.leFeatures == nil)
        let features = CommandComplete(numHCICommandPackets: 1, opcode: .leReadLocalSupportedFeatures, returnParameters: [0x00, 0x01, 0x50])
        #expect(features.leFeatures == [0x01, 0x50])
        let length = CommandComplete(numHCICommandPackets: 1, opcode: .leReadMaximumAdvertisingDataLength, returnParameters: [0x00, 0xFB, 0x00])
        #expect(length.maximumAdvertisingDataLength == 251)
        let short = CommandComplete(numHCICommandPackets: 1, opcode: .leReadMaximumAdvertisingDataLength, returnParameters: [0x00, 0xFB])
        #expect(short.maximumAdvertisingDataLength == nil)
        let sets = CommandComplete(numHCICommandPackets: 1, opcode: .leReadNumberOfSupportedAdvertisingSets, returnParameters: [0x00, 0x10])
        #expect(sets.numberOfSupportedAdvertisingSets == 16)
        #expect(sets.maximumAdvertisingDataLength == nil)
    }

    @Test func mgmtAnswersNameTheirCommandEvenWhenMalformed() {
        // Command Complete (0x0001) for Add Advertising (0x003e), Invalid Parameters, no Instance.
        let complete = MGMTEvent(.commandComplete, index: 0, [0x3E, 0x00, 0x0D])
        #expect(complete.answeredOpcode == .addAdvertising)
        #expect(complete.answeredStatus == .invalidParameters)
        let status = MGMTEvent(.commandStatus, index: 0, [0x3F, 0x00, 0x00])
        #expect(status.answeredOpcode == .removeAdvertising)
        #expect(status.answeredStatus == .success)
        let opcodeOnly = MGMTEvent(.commandComplete, index: 0, [0x3E, 0x00])
        #expect(opcodeOnly.answeredOpcode == .addAdvertising)
        #expect(opcodeOnly.answeredStatus == nil)
        #expect(MGMTEvent(.commandComplete, index: 0, [0x3E]).answeredOpcode == nil)
        #expect(MGMTEvent(.advertisingAdded, index: 0, [0x3E, 0x00, 0x00]).answeredOpcode == nil)
    }

    @Test func hardwareErrorCarriesItsCode() {
        let event = HCIEvent(code: .hardwareError, parameters: [0x2A])
        #expect(ControllerFailure(event, deviceID: 0) == .hardwareError(code: 0x2A))
    }
}
