/// Parses a controller name as the kernel spells it, `hci0`, or a bare id, `0`.
///
/// Returns nil for anything else: an empty id, signs, spaces, non-ASCII digits, or an id above 0xfffe
/// (0xffff is HCI_DEV_NONE), so `hci99999999999` is nil rather than a trap.
public func hciDeviceID(fromName name: String) -> UInt16? {
    var digits = Substring(name)
    if digits.hasPrefix("hci") { digits = digits.dropFirst(3) }
    if digits.isEmpty { return nil }
    var value: UInt32 = 0
    for byte in digits.utf8 {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        value = value * 10 + UInt32(byte - UInt8(ascii: "0"))
        if value >= 0xffff { return nil }
    }
    return UInt16(value)
}
