// SPDX-License-Identifier: Apache-2.0
@testable import BeaconTool
import BeaconKit
import Testing

/// The session's typed phases and notes as the operator reads them: the one place the sentences
/// are pinned (the core's tests assert values).
@Suite struct SessionTextTests {
    /// The one place the sentences are pinned: what the operator reads for each phase.
    @Test func theOperatorsSentences() {
        let error = SessionError.command(.commandFailed(opcode: .leSetAdvertisingEnable, status: .init(rawValue: 0x0C)))
        let phases: [SessionPhase] = [
            .disrupted(.wrote(.leSetExtendedAdvertisingData, set: 239)), .deviceDown, .awaitingReset(hardwareCode: 1),
            .retrying(.deviceUp, error), .connected(.set(238)), .connected(.legacy),
            .yielding(.init(takeovers: 4, windowMilliseconds: 30_000, quietMilliseconds: 10_000, last: .disruption(.wrote(.leSetAdvertisingData, set: nil)))),
            .offPhase(.init(offMilliseconds: 2000, pair: 1, count: 2)),
        ]
        #expect(phases.map { $0.text(device: "hci0") ?? "-" } == [
            "another program sent LE Set Extended Advertising Data for advertising set 239; re-arming",
            "hci0 down; waiting to re-arm",
            "hci0 reported a Hardware Error; waiting for the kernel to reset it",
            "re-arm failed (\(error)); retrying",
            "a connection ended advertising set 238; re-enabling after the disconnection",
            "a central connected; re-enabling after the disconnection",
            "another program took over hci0's advertising 4 times in 30 s (last: another program sent LE Set Advertising Data (legacy advertising)); yielding: not re-arming until it is quiet for 10 s (SIGHUP re-arms now; --share shares the instance)",
            "cycle: off for 2 s (1 of 2)",
        ])
        #expect(SessionMachine.Note.rearmed(.deviceUp, milliseconds: 12).text(device: "hci0", beacons: 3)
                == "re-armed 3 beacon(s) on hci0 after: hci0 up again (on air 12 ms after the event)")
    }

    @Test func theActuatorsNotes() {
        let notes: [SessionNote] = [
            .readded(.instanceRemoved(5), milliseconds: 7),
            .rotatingForCapacity(beacons: 3, rotationMilliseconds: 200),
            .addAdvertisingFallback(.addExtendedAdvertisingData, .invalidParameters),
            .handedBack(enabled: true), .indexRemoved,
            .machine(.displacing(.kernelInstances([1, 2]))),
        ]
        #expect(notes.map { $0.text(device: "hci0", beacons: 2) } == [
            "re-added 2 instance(s) on hci0 after: instance 5 was removed by another program or the kernel (on air 7 ms after the event)",
            "hci0: no free advertising set for each of 3 beacons (Memory Capacity Exceeded); rotating them on one set every 200 ms",
            "the kernel refused MGMT Add Extended Advertising Data (0x0055) with Invalid Parameters (0x0d) (Raspberry Pi kernels 6.12.93 and 6.18.34 do: raspberrypi/linux#7473); using Add Advertising (0x003e) instead: the kernel's advertising interval, not ours",
            "hci0: the advertising instance is handed back as its other owner last wrote it (data, parameters, enabled)",
            "hci0 was removed; waiting for it to return",
            "hci0 has one advertising instance and the kernel's advertising instances 1, 2 use it too: beacon-tx takes it over, so that advertising is off air while beacon-tx runs (to share the instance, use --share)",
        ])
    }
}
