// SPDX-License-Identifier: Apache-2.0
/// An HCI error code (Core spec Vol 1, Part F, §1.3). Open struct: unknown codes stay representable.
public struct Status: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = Status(rawValue: 0x00)
    public static let unknownHCICommand = Status(rawValue: 0x01)
    public static let unknownAdvertisingIdentifier = Status(rawValue: 0x42)
    public static let commandDisallowed = Status(rawValue: 0x0C)
    public static let invalidHCICommandParameters = Status(rawValue: 0x12)
    public static let unsupportedFeatureOrParameterValue = Status(rawValue: 0x11)
    /// Memory Capacity Exceeded: no free advertising set (Core spec Vol 1, Part F, §2.7).
    public static let memoryCapacityExceeded = Status(rawValue: 0x07)

    /// The spec name, e.g. "Command Disallowed".
    public var name: String {
        Int(rawValue) < Self.names.count ? Self.names[Int(rawValue)] : "Unknown"
    }

    /// "Command Disallowed (0x0c)".
    public var description: String { "\(name) (\(Hex.byte(rawValue)))" }

    /// Error code names 0x00–0x45, indexed by code.
    static let names: [String] = [
        "Success", "Unknown HCI Command", "Unknown Connection Identifier", "Hardware Failure",
        "Page Timeout", "Authentication Failure", "PIN or Key Missing", "Memory Capacity Exceeded",
        "Connection Timeout", "Connection Limit Exceeded", "Synchronous Connection Limit To A Device Exceeded",
        "Connection Already Exists", "Command Disallowed", "Connection Rejected due to Limited Resources",
        "Connection Rejected Due To Security Reasons", "Connection Rejected due to Unacceptable BD_ADDR",
        "Connection Accept Timeout Exceeded", "Unsupported Feature or Parameter Value",
        "Invalid HCI Command Parameters", "Remote User Terminated Connection",
        "Remote Device Terminated Connection due to Low Resources",
        "Remote Device Terminated Connection due to Power Off", "Connection Terminated By Local Host",
        "Repeated Attempts", "Pairing Not Allowed", "Unknown LMP PDU", "Unsupported Remote Feature",
        "SCO Offset Rejected", "SCO Interval Rejected", "SCO Air Mode Rejected",
        "Invalid LMP Parameters / Invalid LL Parameters", "Unspecified Error",
        "Unsupported LMP Parameter Value / Unsupported LL Parameter Value", "Role Change Not Allowed",
        "LMP Response Timeout / LL Response Timeout", "LMP Error Transaction Collision / LL Procedure Collision",
        "LMP PDU Not Allowed", "Encryption Mode Not Acceptable", "Link Key cannot be Changed",
        "Requested QoS Not Supported", "Instant Passed", "Pairing With Unit Key Not Supported",
        "Different Transaction Collision", "Reserved for future use", "QoS Unacceptable Parameter",
        "QoS Rejected", "Channel Classification Not Supported", "Insufficient Security",
        "Parameter Out Of Mandatory Range", "Reserved for future use", "Role Switch Pending",
        "Reserved for future use", "Reserved Slot Violation", "Role Switch Failed",
        "Extended Inquiry Response Too Large", "Secure Simple Pairing Not Supported By Host",
        "Host Busy - Pairing", "Connection Rejected due to No Suitable Channel Found", "Controller Busy",
        "Unacceptable Connection Parameters", "Advertising Timeout", "Connection Terminated due to MIC Failure",
        "Connection Failed to be Established / Synchronization Timeout", "Previously used",
        "Coarse Clock Adjustment Rejected but Will Try to Adjust Using Clock Dragging",
        "Type0 Submap Not Defined", "Unknown Advertising Identifier", "Limit Reached",
        "Operation Cancelled by Host", "Packet Too Long",
    ]
}
