/// Why a GATT characteristic value could not be decoded.
public enum GATTValueError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The value ended before `field`: it needed `needed` more bytes and had `have`.
    case truncated(field: String, needed: Int, have: Int)
    /// RR intervals are 16-bit: the bytes after the fixed fields must come in pairs.
    case oddRRIntervalBytes(count: Int)
    /// A field holds a value its specification does not allow.
    case outOfRange(field: String, value: Int)

    public var description: String {
        switch self {
        case .truncated(let field, let needed, let have):
            "value too short: \(field) needs \(needed) byte\(needed == 1 ? "" : "s"), \(have) left"
        case .oddRRIntervalBytes(let count):
            "RR intervals take 2 bytes each, but \(count) byte\(count == 1 ? " is" : "s are") left"
        case .outOfRange(let field, let value):
            "\(field) is \(value), outside what the specification allows"
        }
    }
}

/// Reads little-endian fields from a characteristic value, checking every length.
struct ByteReader {
    private let bytes: [UInt8]
    private(set) var offset: Int = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    mutating func uint8(_ field: String) throws(GATTValueError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(field: field, needed: 1, have: remaining) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func uint16(_ field: String) throws(GATTValueError) -> UInt16 {
        guard remaining >= 2 else { throw .truncated(field: field, needed: 2, have: remaining) }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    mutating func uint32(_ field: String) throws(GATTValueError) -> UInt32 {
        guard remaining >= 4 else { throw .truncated(field: field, needed: 4, have: remaining) }
        defer { offset += 4 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }
}

extension Array where Element == UInt8 {
    mutating func appendLittleEndian(_ value: UInt16) {
        append(UInt8(truncatingIfNeeded: value))
        append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func appendLittleEndian(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}
