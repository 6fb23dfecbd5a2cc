// SPDX-License-Identifier: Apache-2.0
import BeaconKit
import BeaconTestSupport
@testable import BeaconTool
import Testing

/// `start --share always --dry-run`: the MGMT plan as text and JSON, whole.
@Suite struct ShareDryRunTests {
    static let two = ["start", "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1", "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:2",
                      "--share", "always", "--dry-run"]

    @Test func textAndJSONSnapshots() {
        let text = tool(Self.two)
        #expect(text.code == 0 && text.err == "")
        expectSnapshot(text.out, "share-dry-run.txt")
        let json = tool(Self.two + ["--format", "json", "--rotation", "2000", "--connectable"])
        #expect(json.code == 0 && json.err == "")
        expectSnapshot(json.out, "share-dry-run.json")
    }

    /// The packets in the JSON are mgmt-api's layouts, byte for byte (written out by hand).
    @Test func jsonCarriesTheMGMTPackets() {
        let r = tool(Self.two + ["--format", "json"])
        // Add Extended Advertising Parameters: instance 5, flags 0x5000, duration 1, timeout 0, 100 ms twice, tx 0.
        let parameters: String = "\"hex\": \"540000001200" + "05" + "00500000" + "0100" + "0000" + "a0000000a0000000" + "00\""
        // Add Extended Advertising Data: instance 4, 30 octets, no scan response.
        let data: String = "\"hex\": \"550000002100" + "04" + "1e00" + "0201061aff4c000215e2c56db5dffb48d2b060d0f5a71096e000010002c5\""
        #expect(r.out.contains(parameters))
        #expect(r.out.contains(data))
        #expect(r.out.contains("\"hex\": \"3f000000010005\""))
    }

    /// HCI formats and raw-HCI-only options are usage errors; `--cycle` works in the sharing mode (issue 29).
    @Test func hciFormatsAndRawHCIOnlyOptionsAreUsageErrors() {
        for format in ["hex", "hcitool", "btsnoop"] {
            let r = tool(Self.two + ["--format", format])
            #expect(r.code == 64, "\(format)")
            #expect(r.err.contains("--share always plan is MGMT commands"), "\(format): \(r.err)")
        }
        #expect(tool(Self.two + ["--cycle", "5:5"]).code == 0)
        #expect(tool(Self.two + ["--advertising-set", "3"]).code == 64)
        #expect(tool(["start", "--beacon", "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0:1:1", "--share", "sometimes", "--dry-run"]).code == 64)
    }
}
