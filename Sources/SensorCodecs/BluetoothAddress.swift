/// A Bluetooth device address (BD_ADDR), written most significant byte first as people read it:
/// `F0:F0:F0:00:00:01`. On the wire and in `bdaddr_t` the bytes are in the reverse order.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first.
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 6 else { return nil }
        self.bytes = bytes
    }

    /// From the wire's little-endian order.
    public init?(littleEndian: some Collection<UInt8>) {
        self.init(bytes: Array(littleEndian.reversed()))
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case; `-` also separates).
    public init?(_ text: String) {
        let parts = text.split(whereSeparator: { $0 == ":" || $0 == "-" })
        guard parts.count == 6 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            out.append(byte)
        }
        bytes = out
    }

    public var littleEndian: [UInt8] { bytes.reversed() }

    public var description: String {
        bytes.map { Hex.encode([$0]).uppercased() }.joined(separator: ":")
    }

    public static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }
}

/// How an LE device's address is to be read (Core 5.4 Vol 6 Part B §1.3): the kernel needs it to
/// connect.
public enum BluetoothAddressType: String, Hashable, Sendable, Codable, CaseIterable {
    /// A public (IEEE-assigned) LE address.
    case lePublic = "public"
    /// A random LE address (static, or resolvable private).
    case leRandom = "random"
    /// A classic BR/EDR address.
    case bredr

    /// From an HCI advertising report's address type: 0 public, 1 random, 2 and 3 the identity
    /// addresses a controller resolved from them.
    public init?(hciLEAddressType value: UInt8) {
        switch value {
        case 0x00, 0x02: self = .lePublic
        case 0x01, 0x03: self = .leRandom
        default: return nil
        }
    }
}
